/**
 * DeepSeek V3 (`deepseek`): calls in a section, each naming its type and function, the arguments
 * in a fenced JSON block:
 *
 *   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
 *   ```json
 *   {"city": "Paris"}
 *   ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 *
 * The markers use U+FF5C (｜) and U+2581 (▁), as in SMG and the model's tokenizer.
 */
import type { ToolCall } from '../types.js';
import { jsonArguments } from './marker-arguments.js';
import { markerToolParser } from './marker-stream.js';

const TOOL_SEP = '<｜tool▁sep｜>';
const FENCE_OPEN = '```json';
const FENCE_CLOSE = '```';

function parseCall(body: string): ToolCall | undefined {
  const sep = body.indexOf(TOOL_SEP);
  // SMG accepts only the `function` type.
  if (sep === -1 || body.slice(0, sep).trim() !== 'function') return undefined;
  const rest = body.slice(sep + TOOL_SEP.length);
  const lineEnd = rest.indexOf('\n');
  if (lineEnd === -1) return undefined;
  const name = rest.slice(0, lineEnd).trim();
  const fenced = rest.slice(lineEnd + 1).trim();
  if (name === '' || !fenced.startsWith(FENCE_OPEN) || !fenced.endsWith(FENCE_CLOSE)) {
    return undefined;
  }
  const args = jsonArguments(fenced.slice(FENCE_OPEN.length, -FENCE_CLOSE.length), 'wrap');
  return args === undefined ? undefined : { name, arguments: args };
}

export const deepseekToolParser = markerToolParser('deepseek', {
  section: { begin: '<｜tool▁calls▁begin｜>', end: '<｜tool▁calls▁end｜>' },
  callBegin: '<｜tool▁call▁begin｜>',
  callEnd: '<｜tool▁call▁end｜>',
  parseCall,
});
