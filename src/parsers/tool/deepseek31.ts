/**
 * DeepSeek V3.1 (`deepseek31`): like V3 without the type and the fence, the name before the
 * separator and the JSON arguments after it:
 *
 *   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 *
 * The markers use U+FF5C (｜) and U+2581 (▁), as in SMG and the model's tokenizer.
 */
import type { ToolCall } from '../types.js';
import { jsonArguments } from './marker-arguments.js';
import { markerToolParser } from './marker-stream.js';

const TOOL_SEP = '<｜tool▁sep｜>';

function parseCall(body: string): ToolCall | undefined {
  const sep = body.indexOf(TOOL_SEP);
  if (sep === -1) return undefined;
  const name = body.slice(0, sep).trim();
  const args = jsonArguments(body.slice(sep + TOOL_SEP.length), 'wrap');
  return name === '' || args === undefined ? undefined : { name, arguments: args };
}

export const deepseek31ToolParser = markerToolParser('deepseek31', {
  section: { begin: '<｜tool▁calls▁begin｜>', end: '<｜tool▁calls▁end｜>' },
  callBegin: '<｜tool▁call▁begin｜>',
  callEnd: '<｜tool▁call▁end｜>',
  parseCall,
});
