import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** GLM-4.5 and later (SMG maps GLM-4.7 and GLM-5 here too): the model prints `<think>` itself. */
export const glm45 = markerPairParser({
  name: 'glm45',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
