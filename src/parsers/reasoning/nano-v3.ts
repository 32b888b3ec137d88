import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/**
 * Nemotron Nano/Super v3: the `enable_thinking` toggle of its template opens `<think>` in the
 * prompt or closes it there, so only the prompt (`inReasoning`) says where the answer begins.
 */
export const nanoV3 = markerPairParser({
  name: 'nano_v3',
  ...THINK_TAGS,
  alwaysStartsInReasoning: false,
});
