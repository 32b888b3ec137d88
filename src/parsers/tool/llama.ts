/**
 * `llama` (Llama 3.x JSON tool calls): `<|python_tag|>` then `{"name": "f", "parameters": {...}}`
 * (or `"arguments"`), several joined by `;`. As in SMG, the tag may be left out when the answer
 * itself begins with the JSON object; text before the tag is content. Text after the calls is
 * content too (SMG returns such an answer whole as content when it has no tag).
 */
import type { ToolParser, ToolParseResult, ToolStream } from '../types.js';
import { CallStream, parseWhole, type FindStart } from './call-stream.js';
import { JsonCallSection } from './json-call-section.js';
import { NAME_ARGS_KEYS } from './json-call.js';
import { findMarker } from './find-start.js';
import { skipJsonWhitespace } from './text-buffer.js';

const SHAPE = { keys: NAME_ARGS_KEYS, lists: false, separator: ';' };

const findTag = findMarker('<|python_tag|>', (at, from) => new JsonCallSection(at, from, SHAPE));

const findCall: FindStart = (buf, from, atStart) => {
  if (atStart) {
    const p = skipJsonWhitespace(buf, from);
    if (buf.charCodeAt(p) === 123) return { at: p, section: new JsonCallSection(p, p, SHAPE) };
  }
  return findTag(buf, from, atStart);
};

export class LlamaToolParser implements ToolParser {
  readonly name = 'llama';

  parse(text: string): ToolParseResult {
    return parseWhole(findCall, text);
  }

  stream(): ToolStream {
    return new CallStream(findCall);
  }
}
