import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** DeepSeek-R1: its template opens `<think>` in the prompt, so every answer begins reasoning. */
export const deepseekR1 = markerPairParser({
  name: 'deepseek_r1',
  ...THINK_TAGS,
  alwaysStartsInReasoning: true,
});
