/**
 * The property every tool parser keeps: for any split of an answer into deltas, streaming gives
 * what whole-text parsing gives. The streamed content concatenates to the parsed content, each
 * call index gets its name exactly once (on its first fragment, in order), and each call's
 * argument fragments concatenate to the parsed `arguments`.
 */
import assert from 'node:assert/strict';
import type {
  ToolCall,
  ToolParser,
  ToolParseResult,
  ToolStreamStep,
} from '../../../src/parsers/types.js';

/** Streams `deltas` through a fresh stream, checking each fragment's shape on the way. */
export function runStream(parser: ToolParser, deltas: readonly string[]): ToolParseResult {
  const stream = parser.stream();
  const out: ToolParseResult = { content: '', calls: [] };
  const take = (step: ToolStreamStep): void => {
    out.content += step.content;
    for (const delta of step.calls) {
      if (delta.name !== undefined) {
        assert.equal(delta.index, out.calls.length, 'a name starts the next call, once');
        out.calls.push({ name: delta.name, arguments: '' });
      }
      const call: ToolCall | undefined = out.calls[delta.index];
      assert.ok(call !== undefined, `fragment for call ${delta.index} before its name`);
      call.arguments += delta.arguments ?? '';
    }
  };
  for (const delta of deltas) take(stream.push(delta));
  take(stream.finish());
  return out;
}

/** Indices between code points: a real stream never splits a surrogate pair. */
function boundaries(text: string): number[] {
  const out = [0];
  let i = 0;
  for (const ch of text) {
    i += ch.length;
    out.push(i);
  }
  return out;
}

function cut(text: string, points: readonly number[]): string[] {
  const deltas: string[] = [];
  let from = 0;
  for (const p of points) {
    deltas.push(text.slice(from, p));
    from = p;
  }
  deltas.push(text.slice(from));
  return deltas;
}

/** Deterministic pseudo-random numbers, so a failure replays. */
function lcg(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

/** Every way the property is tried: each single split, one delta per character, random cuts. */
export function splits(text: string, randomRuns = 60, seed = 7): string[][] {
  const points = boundaries(text);
  const out = points.map((p) => cut(text, [p]));
  out.push(cut(text, points.slice(1, -1)));
  const random = lcg(seed + text.length);
  for (let run = 0; run < randomRuns; run++) {
    const chosen = points.filter(() => random(4) === 0).sort((a, b) => a - b);
    out.push(cut(text, chosen));
  }
  return out;
}

/**
 * Asserts the property for `text` (and, when given, that whole-text parsing gives `expected`).
 * Every call's arguments must be JSON text.
 */
export function assertStreamsLikeParse(
  parser: ToolParser,
  text: string,
  expected?: ToolParseResult,
): ToolParseResult {
  const whole = parser.parse(text);
  if (expected !== undefined) assert.deepEqual(whole, expected);
  for (const call of whole.calls) JSON.parse(call.arguments);
  for (const deltas of splits(text)) {
    assert.deepEqual(runStream(parser, deltas), whole, `split ${JSON.stringify(deltas)}`);
  }
  return whole;
}
