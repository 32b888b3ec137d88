import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** DeepSeek-V3.1: thinking is off unless asked for, so only the prompt opens the block. */
export const deepseekV31 = markerPairParser({
  name: 'deepseek_v31',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
