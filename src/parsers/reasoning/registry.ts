/** The reasoning parsers by SMG name, for `--reasoning-parser` and the model-name mapping. */
import type { ReasoningParser } from '../types.js';
import { deepseekR1 } from './deepseek-r1.js';
import { qwen3 } from './qwen3.js';

export const REASONING_PARSERS: ReadonlyMap<string, ReasoningParser> = new Map(
  [deepseekR1, qwen3].map((p) => [p.name, p]),
);

/** The parser named `name`, or undefined when Switchyard has none by that name. */
export function reasoningParserByName(name: string): ReasoningParser | undefined {
  return REASONING_PARSERS.get(name);
}
