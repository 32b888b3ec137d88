import { markerPairParser, THINK_TAGS } from './marker-pair.js';

/** Kimi-K2-Thinking: `<think>` tags, and every answer begins inside the block. */
export const kimiThinking = markerPairParser({
  name: 'kimi_thinking',
  ...THINK_TAGS,
  alwaysStartsInReasoning: true,
});
