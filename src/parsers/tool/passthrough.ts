/** `passthrough`: no tool parsing; the whole answer is content, as it streams. */
import type { ToolParser, ToolParseResult, ToolStream } from '../types.js';

export class PassthroughToolParser implements ToolParser {
  readonly name = 'passthrough';

  parse(text: string): ToolParseResult {
    return { content: text, calls: [] };
  }

  stream(): ToolStream {
    return {
      push: (delta) => ({ content: delta, calls: [] }),
      finish: () => ({ content: '', calls: [] }),
    };
  }
}
