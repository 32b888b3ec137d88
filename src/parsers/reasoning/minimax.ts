import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** MiniMax-M2: its template always opens `<think>` in the prompt, so answers begin reasoning. */
export const minimax = markerPairParser({
  name: 'minimax',
  ...THINK_TAGS,
  alwaysStartsInReasoning: true,
});
