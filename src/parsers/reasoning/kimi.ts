import { markerPairParser } from './marker-pair.js';

/** Kimi (K1.5, K2-Instruct): a block between the Unicode markers `◁think▷` and `◁/think▷`. */
export const kimi = markerPairParser({
  name: 'kimi',
  startTag: '◁think▷',
  endTag: '◁/think▷',
  alwaysStartsInReasoning: false,
});
