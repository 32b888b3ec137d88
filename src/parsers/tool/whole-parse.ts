/**
 * The whole-text parse of a tool parser, as its own stream fed the text in one piece: a parser
 * built this way cannot answer a whole text differently from the same text streamed.
 */
import type { ToolCall, ToolParseResult, ToolStream } from '../types.js';

export function parseWhole(stream: ToolStream, text: string): ToolParseResult {
  let content = '';
  const calls: ToolCall[] = [];
  for (const step of [stream.push(text), stream.finish()]) {
    content += step.content;
    for (const delta of step.calls) {
      const call = (calls[delta.index] ??= { name: '', arguments: '' });
      if (delta.name !== undefined) call.name = delta.name;
      call.arguments += delta.arguments ?? '';
    }
  }
  return { content, calls };
}
