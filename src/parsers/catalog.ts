/** Every parser the gateway has, by SMG name: what the flags, the pipeline and the admin routes look up. */
import { REASONING_PARSER_NAMES, TOOL_PARSER_NAMES } from './model-map.js';
import { REASONING_PARSERS } from './reasoning/registry.js';
import { TOOL_CALL_MARKERS, TOOL_PARSERS } from './tool/registry.js';
import type { ReasoningParser, ToolParser } from './types.js';

export function toolParserNamed(name: string): ToolParser | undefined {
  return TOOL_PARSERS.get(name);
}

export function reasoningParserNamed(name: string): ReasoningParser | undefined {
  return REASONING_PARSERS.get(name);
}

/** The text that opens a call of the named tool parser's format, if it has one. */
export function toolMarkerOf(name: string): string | undefined {
  return TOOL_CALL_MARKERS[name];
}

/** SMG's tool parser names Switchyard does not implement (their formats are not built). */
export const UNBUILT_TOOL_PARSERS: readonly string[] = TOOL_PARSER_NAMES.filter(
  (n) => !TOOL_PARSERS.has(n),
);

/** SMG's reasoning parser names Switchyard does not implement (structured channels). */
export const UNBUILT_REASONING_PARSERS: readonly string[] = REASONING_PARSER_NAMES.filter(
  (n) => !REASONING_PARSERS.has(n),
);
