/**
 * `mistral` (Mistral v0.3 style): `[TOOL_CALLS] [{"name": "f", "arguments": {...}}, ...]`. Text
 * before the marker is content; so is text after the list (SMG drops it, but the contract keeps
 * every character outside the calls). A single object after the marker is read as a one-call
 * list. The newer `[TOOL_CALLS]name[ARGS]{...}` form is not read, as SMG does not read it.
 */
import type { ToolParser, ToolParseResult, ToolStream } from '../types.js';
import { CallStream, parseWhole } from './call-stream.js';
import { JsonCallSection } from './json-call-section.js';
import { NAME_ARGS_KEYS } from './json-call.js';
import { findMarker } from './find-start.js';

const SHAPE = { keys: NAME_ARGS_KEYS, lists: true };

const findCall = findMarker('[TOOL_CALLS]', (at, from) => new JsonCallSection(at, from, SHAPE));

export class MistralToolParser implements ToolParser {
  readonly name = 'mistral';

  parse(text: string): ToolParseResult {
    return parseWhole(findCall, text);
  }

  stream(): ToolStream {
    return new CallStream(findCall);
  }
}
