import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** SMG's generic `base` parser: `<think>` tags, reasoning only once opened. */
export const base = markerPairParser({
  name: 'base',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
