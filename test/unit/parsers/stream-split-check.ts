/**
 * Checks a tool parser's stream against its whole-text parse over many ways of cutting the text
 * into deltas: every single cut, one character at a time, and seeded random multi-cuts. A marker
 * split over deltas (as another model's tokenizer splits it over tokens) must still be found.
 */
import assert from 'node:assert/strict';
import type { ToolCall, ToolParseResult, ToolParser } from '../../../src/parsers/types.js';

/** mulberry32: a small seeded generator, so a failing random split repeats run to run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Streams `pieces` through a fresh stream and checks: the content concatenates to the whole-text
 * content; each call's first fragment, and only that one, carries its name; calls open in order;
 * each call's argument fragments concatenate to the whole-text arguments.
 */
export function assertStreamMatches(parser: ToolParser, pieces: readonly string[]): void {
  const whole = parser.parse(pieces.join(''));
  const stream = parser.stream();
  const label = JSON.stringify(pieces);
  let content = '';
  const calls: ToolCall[] = [];
  for (const step of [...pieces.map((p) => stream.push(p)), stream.finish()]) {
    content += step.content;
    for (const delta of step.calls) {
      const call = calls[delta.index];
      if (call === undefined) {
        assert.equal(delta.index, calls.length, `call ${delta.index} opens in order: ${label}`);
        assert.ok(delta.name !== undefined, `call ${delta.index} named first: ${label}`);
        calls.push({ name: delta.name, arguments: delta.arguments ?? '' });
      } else {
        assert.equal(delta.name, undefined, `call ${delta.index} named twice: ${label}`);
        call.arguments += delta.arguments ?? '';
      }
    }
  }
  assert.equal(content, whole.content, `content: ${label}`);
  assert.deepEqual(calls, whole.calls, `calls: ${label}`);
}

/** Checks every way of cutting `text` listed above and returns the whole-text parse. */
export function assertEverySplitMatches(
  parser: ToolParser,
  text: string,
  { randomCuts = 40, seed = 7 } = {},
): ToolParseResult {
  for (let at = 0; at <= text.length; at++) {
    assertStreamMatches(parser, [text.slice(0, at), text.slice(at)]);
  }
  assertStreamMatches(parser, [...text]);
  const random = seededRandom(seed);
  for (let n = 0; n < randomCuts; n++) {
    const pieces: string[] = [];
    let from = 0;
    while (from < text.length) {
      const size = 1 + Math.floor(random() * 12);
      pieces.push(text.slice(from, from + size));
      from += size;
    }
    assertStreamMatches(parser, pieces);
  }
  return parser.parse(text);
}
