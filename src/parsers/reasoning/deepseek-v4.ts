import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** DeepSeek-V4: its renderer opens `<think>` in the prompt when thinking is on (`inReasoning`). */
export const deepseekV4 = markerPairParser({
  name: 'deepseek_v4',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
