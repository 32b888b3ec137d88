// Every marker-pair reasoning parser against SMG's test-case shapes, written once over each
// parser's own markers, and the streaming invariant: however an answer is cut into deltas, the
// streamed reasoning and content concatenate to exactly the whole-text split.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REASONING_PARSERS } from '../../../src/parsers/reasoning/registry.js';
import type {
  ReasoningParser,
  ReasoningResult,
  ReasoningStart,
} from '../../../src/parsers/types.js';

const MARKER_PAIRS = [...REASONING_PARSERS.values()].filter((p) => p.name !== 'passthrough');

/** Streams `chunks` through a fresh stream and concatenates every step and the finish. */
function streamed(
  parser: ReasoningParser,
  chunks: readonly string[],
  start: ReasoningStart,
): ReasoningResult {
  const s = parser.stream(start);
  const out = { reasoning: '', content: '' };
  for (const step of [...chunks.map((c) => s.push(c)), s.finish()]) {
    out.reasoning += step.reasoning;
    out.content += step.content;
  }
  return out;
}

/** A small seeded PRNG (mulberry32), so a failing random split can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Asserts `text` parses to `expected`, and streams to the same whatever the cuts: at each single
 * boundary, one character per delta, and random multi-cuts from a fixed seed.
 */
function check(
  parser: ReasoningParser,
  text: string,
  start: ReasoningStart,
  expected: ReasoningResult,
): void {
  const label = `${parser.name} ${JSON.stringify(text)} inReasoning=${start.inReasoning}`;
  assert.deepEqual(parser.parse(text, start), expected, label);
  assert.deepEqual(streamed(parser, [text], start), expected, `${label} one delta`);
  assert.deepEqual(streamed(parser, [...text], start), expected, `${label} per character`);
  for (let i = 0; i <= text.length; i++) {
    const chunks = [text.slice(0, i), text.slice(i)];
    assert.deepEqual(streamed(parser, chunks, start), expected, `${label} cut at ${i}`);
  }
  const random = prng(text.length * 7919 + 17);
  for (let round = 0; round < 50; round++) {
    const cuts = new Set<number>();
    const n = 1 + Math.floor(random() * 6);
    for (let k = 0; k < n; k++) cuts.add(Math.floor(random() * (text.length + 1)));
    const sorted = [0, ...[...cuts].sort((x, y) => x - y), text.length];
    const chunks = sorted.slice(1).map((end, k) => text.slice(sorted[k], end));
    assert.deepEqual(streamed(parser, chunks, start), expected, `${label} cuts ${sorted.join()}`);
  }
}

const OFF = { inReasoning: false };
const ON = { inReasoning: true };
const r = (reasoning: string, content = ''): ReasoningResult => ({ reasoning, content });

for (const p of MARKER_PAIRS) {
  const S = p.startTag;
  const E = p.endTag;
  // Where the answer begins when the prompt did not open a block.
  const fromStart = p.alwaysStartsInReasoning;

  test(`${p.name}: a block then content, whitespace kept verbatim`, () => {
    for (const start of [OFF, ON]) {
      check(
        p,
        `${S}with reasoning${E} and more text.`,
        start,
        r('with reasoning', ' and more text.'),
      );
      check(p, `${S}\nstep 1\n${E}\n\nThe answer.`, start, r('\nstep 1\n', '\n\nThe answer.'));
    }
  });

  test(`${p.name}: a block never closed is all reasoning`, () => {
    for (const start of [OFF, ON])
      check(p, `${S}with truncated reasoning`, start, r('with truncated reasoning'));
  });

  test(`${p.name}: no markers at all`, () => {
    const text = 'This is a test without reasoning.';
    check(p, text, OFF, fromStart ? r(text) : r('', text));
    check(p, text, ON, r(text));
  });

  test(`${p.name}: begun inside the block, the end marker closes it`, () => {
    check(p, `reasoning content${E}normal content`, ON, r('reasoning content', 'normal content'));
    check(p, `${E}answer`, ON, r('', 'answer'));
    if (fromStart) check(p, `thinking${E}answer`, OFF, r('thinking', 'answer'));
    else check(p, `not a block${E}answer`, OFF, r('', `not a block${E}answer`));
  });

  test(`${p.name}: an opening marker printed anyway inside the block is dropped`, () => {
    check(p, `${S}reasoning${E}answer`, ON, r('reasoning', 'answer'));
    check(p, `let me ${S}think${E}ok`, ON, r('let me think', 'ok'));
  });

  test(`${p.name}: empty reasoning`, () => {
    for (const start of [OFF, ON]) check(p, `${S}${E}The answer.`, start, r('', 'The answer.'));
    check(p, `${S}   \n\t  ${E}answer`, OFF, r('   \n\t  ', 'answer'));
  });

  test(`${p.name}: text before the start marker`, () => {
    const text = `normal text ${S}reasoning${E}answer`;
    check(
      p,
      text,
      OFF,
      fromStart ? r('normal text reasoning', 'answer') : r('reasoning', 'normal text answer'),
    );
  });

  test(`${p.name}: after the block everything is content, a second block included`, () => {
    const second = `b${S}c${E}d`;
    check(p, `${S}a${E}${second}`, OFF, r('a', second));
    check(p, `a${E}${second}`, ON, r('a', second));
  });

  test(`${p.name}: a second start marker inside an opened block is reasoning text`, () => {
    check(p, `${S}a${S}b${E}c`, OFF, r(`a${S}b`, 'c'));
  });

  test(`${p.name}: a marker cut short at the end is text of its part`, () => {
    for (let n = 1; n < E.length; n++) {
      check(p, `${S}thinking${E.slice(0, n)}`, OFF, r(`thinking${E.slice(0, n)}`));
      check(p, `${S}a${E}b${E.slice(0, n)}`, OFF, r('a', `b${E.slice(0, n)}`));
    }
    for (let n = 1; n < S.length; n++) {
      const partial = S.slice(0, n);
      check(
        p,
        `answer ${partial}`,
        OFF,
        fromStart ? r(`answer ${partial}`) : r('', `answer ${partial}`),
      );
    }
  });

  test(`${p.name}: Unicode around and inside the block`, () => {
    check(
      p,
      `${S}分析这个问题 🤔 x < 10 > 5${E}答案是42。`,
      OFF,
      r('分析这个问题 🤔 x < 10 > 5', '答案是42。'),
    );
  });

  test(`${p.name}: reasoning streams as it arrives, a split marker is held`, () => {
    const s = p.stream(OFF);
    const head = fromStart ? '' : S;
    assert.deepEqual(s.push(`${head}reasoning `), r('reasoning '));
    assert.deepEqual(s.push('content '), r('content '));
    assert.deepEqual(s.push(`more${E.slice(0, 2)}`), r('more'));
    assert.deepEqual(s.push(`${E.slice(2)} normal`), r('', ' normal'));
    assert.deepEqual(s.push(S), r('', S), 'after the block a marker is plain content');
    assert.deepEqual(s.finish(), r(''));
  });
}

test('a partial start marker is held, then released once it cannot be one', () => {
  const qwen3 = REASONING_PARSERS.get('qwen3')!;
  const s = qwen3.stream(OFF);
  assert.deepEqual(s.push('<thi'), r(''));
  assert.deepEqual(s.push('s is html'), r('', '<this is html'));
  // SMG also holds `</` here; no marker can start with it before a block, so it goes out at once.
  assert.deepEqual(s.push('</'), r('', '</'));
  assert.deepEqual(s.push('answer'), r('', 'answer'));
  assert.deepEqual(s.finish(), r(''));
});

test("kimi's Unicode markers split mid-marker", () => {
  const kimi = REASONING_PARSERS.get('kimi')!;
  const s = kimi.stream(OFF);
  assert.deepEqual(s.push('normal '), r('', 'normal '));
  assert.deepEqual(s.push('◁thi'), r(''));
  assert.deepEqual(s.push('nk▷reasoning'), r('reasoning'));
  assert.deepEqual(s.push('◁/think▷answer'), r('', 'answer'));
  assert.deepEqual(s.finish(), r(''));
});

test('a held partial marker is flushed by finish as the kind of its part', () => {
  const qwen3 = REASONING_PARSERS.get('qwen3')!;
  const before = qwen3.stream(OFF);
  assert.deepEqual(before.push('answer <th'), r('', 'answer '));
  assert.deepEqual(before.finish(), r('', '<th'));
  const inside = qwen3.stream(ON);
  assert.deepEqual(inside.push('thinking </thi'), r('thinking '));
  assert.deepEqual(inside.finish(), r('</thi'));
});

test('streams are independent of one another', () => {
  const qwen3 = REASONING_PARSERS.get('qwen3')!;
  const a = qwen3.stream(OFF);
  const b = qwen3.stream(ON);
  assert.deepEqual(a.push('<think>x'), r('x'));
  assert.deepEqual(b.push('y</think>z'), r('y', 'z'));
  assert.deepEqual(a.push('</think>w'), r('', 'w'));
});
