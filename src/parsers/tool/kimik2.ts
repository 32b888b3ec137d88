/**
 * Kimi K2 (`kimik2`): calls in a section, each identified as `functions.NAME:INDEX`, the JSON
 * arguments after their own marker:
 *
 *   <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
 *   <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>
 *
 * (one line in the model's output). The model's INDEX is not used: calls are numbered in order.
 */
import type { ToolCall } from '../types.js';
import { jsonArguments } from './marker-arguments.js';
import { markerToolParser } from './marker-stream.js';

const ARGUMENT_BEGIN = '<|tool_call_argument_begin|>';
/** `functions.NAME:INDEX`; SMG also takes an id without the `functions.` namespace. */
const CALL_ID = /^(?:functions\.)?(\S+):\d+$/;

function parseCall(body: string): ToolCall | undefined {
  const sep = body.indexOf(ARGUMENT_BEGIN);
  if (sep === -1) return undefined;
  const name = CALL_ID.exec(body.slice(0, sep).trim())?.[1];
  // SMG reads the arguments only as a JSON object.
  const args = jsonArguments(body.slice(sep + ARGUMENT_BEGIN.length), 'reject');
  return name === undefined || args === undefined ? undefined : { name, arguments: args };
}

export const kimiK2ToolParser = markerToolParser('kimik2', {
  section: { begin: '<|tool_calls_section_begin|>', end: '<|tool_calls_section_end|>' },
  callBegin: '<|tool_call_begin|>',
  callEnd: '<|tool_call_end|>',
  parseCall,
});
