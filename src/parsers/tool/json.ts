/**
 * `json`: calls written as plain JSON, OpenAI style: `{"name": "f", "arguments": {...}}` (or
 * `"parameters"`), or a `[...]` list of such objects. As in SMG, the JSON may sit inside prose, which
 * stays content, and a string `"function"` key may name the function instead of `"name"`. A JSON
 * value that is not a call (a list of numbers, an object without a name) is content.
 */
import type { ToolParser, ToolParseResult, ToolStream } from '../types.js';
import { CallStream, parseWhole, type FindStart } from './call-stream.js';
import { JsonCallSection } from './json-call-section.js';

const SHAPE = {
  keys: { name: ['name', 'function'], args: ['arguments', 'parameters'] },
  lists: true,
};

/** Any `{` or `[` may open a call or a list of calls. */
const findCall: FindStart = (buf, from) => {
  const text = buf.slice(from);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      return { at: from + i, section: new JsonCallSection(from + i, from + i, SHAPE) };
    }
  }
  return buf.length;
};

export class JsonToolParser implements ToolParser {
  readonly name = 'json';

  parse(text: string): ToolParseResult {
    return parseWhole(findCall, text);
  }

  stream(): ToolStream {
    return new CallStream(findCall);
  }
}
