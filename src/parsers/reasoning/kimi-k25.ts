import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** Kimi-K2.5: plain `<think>` tags; its template toggle decides whether the prompt opens one. */
export const kimiK25 = markerPairParser({
  name: 'kimi_k25',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
