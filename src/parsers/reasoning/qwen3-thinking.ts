import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** Qwen3 `-Thinking` checkpoints: their template opens `<think>`, so answers begin reasoning. */
export const qwen3Thinking = markerPairParser({
  name: 'qwen3_thinking',
  ...THINK_TAGS,
  alwaysStartsInReasoning: true,
});
