import { markerPairParser } from './marker-pair.js';

/** Cohere Command (R, A): a block between `<|START_THINKING|>` and `<|END_THINKING|>`. */
export const cohereCmd = markerPairParser({
  name: 'cohere_cmd',
  startTag: '<|START_THINKING|>',
  endTag: '<|END_THINKING|>',
  alwaysStartsInReasoning: false,
});
