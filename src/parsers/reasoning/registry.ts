/**
 * The reasoning parsers by SMG name, for `--reasoning-parser` and the model-name mapping. SMG's
 * `kimi_k3` and `inkling` are not here: they parse structured channels, not a marker pair.
 */
import type { ReasoningParser } from '../types.js';
import { base } from './base.js';
import { cohereCmd } from './cohere-cmd.js';
import { deepseekR1 } from './deepseek-r1.js';
import { deepseekV31 } from './deepseek-v31.js';
import { deepseekV4 } from './deepseek-v4.js';
import { glm45 } from './glm45.js';
import { kimi } from './kimi.js';
import { kimiK25 } from './kimi-k25.js';
import { kimiThinking } from './kimi-thinking.js';
import { minimax } from './minimax.js';
import { nanoV3 } from './nano-v3.js';
import { passthrough } from './passthrough.js';
import { qwen3 } from './qwen3.js';
import { qwen3Thinking } from './qwen3-thinking.js';
import { step3 } from './step3.js';

export const REASONING_PARSERS: ReadonlyMap<string, ReasoningParser> = new Map(
  [
    base,
    passthrough,
    deepseekR1,
    qwen3,
    qwen3Thinking,
    kimi,
    glm45,
    step3,
    minimax,
    cohereCmd,
    nanoV3,
    deepseekV31,
    deepseekV4,
    kimiK25,
    kimiThinking,
  ].map((p) => [p.name, p]),
);

/** The parser named `name`, or undefined when Switchyard has none by that name. */
export function reasoningParserByName(name: string): ReasoningParser | undefined {
  return REASONING_PARSERS.get(name);
}
