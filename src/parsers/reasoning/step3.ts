import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** Step-3: like DeepSeek-R1, every answer begins inside the `<think>` block. */
export const step3 = markerPairParser({
  name: 'step3',
  ...THINK_TAGS,
  alwaysStartsInReasoning: true,
});
