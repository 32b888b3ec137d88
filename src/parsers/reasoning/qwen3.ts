import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/**
 * Qwen3 (and, by SMG's patterns, every `qwen` model): the model prints `<think>` itself unless
 * the prompt already opened it, which the pipeline reports as `inReasoning`.
 */
export const qwen3 = markerPairParser({
  name: 'qwen3',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
