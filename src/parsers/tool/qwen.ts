/**
 * `qwen` (Hermes style, Qwen 2.5 / Qwen3): each call is a JSON object in its own tags,
 * `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`, with text before, between or
 * after the calls being content. Whitespace around the object is allowed, and the closing tag may
 * be missing at the very end (an engine that stops on it may not print it).
 */
import type { ToolParser, ToolParseResult, ToolStream } from '../types.js';
import { CallStream, parseWhole } from './call-stream.js';
import { JsonCallSection } from './json-call-section.js';
import { NAME_ARGS_KEYS } from './json-call.js';
import { findMarker } from './find-start.js';

const SHAPE = { keys: NAME_ARGS_KEYS, lists: false, closeTag: '</tool_call>' };

const findCall = findMarker('<tool_call>', (at, from) => new JsonCallSection(at, from, SHAPE));

export class QwenToolParser implements ToolParser {
  readonly name = 'qwen';

  parse(text: string): ToolParseResult {
    return parseWhole(findCall, text);
  }

  stream(): ToolStream {
    return new CallStream(findCall);
  }
}
