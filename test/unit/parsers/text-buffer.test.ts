import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TextBuffer, skipJsonWhitespace } from '../../../src/parsers/tool/text-buffer.js';

/** Deterministic pseudo-random numbers, so a failure replays. */
function lcg(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

test('reads agree with the same text held as one string, across any part layout', () => {
  const random = lcg(99);
  for (let run = 0; run < 200; run++) {
    const buf = new TextBuffer();
    let text = '';
    // Deltas from 1 character to past the merge limit, so parts of every size occur.
    while (text.length < 4000) {
      const size = random(4) === 0 ? 1 + random(1500) : 1 + random(8);
      let delta = '';
      for (let i = 0; i < size; i++) delta += 'ab</x>'[random(6)];
      buf.append(delta);
      text += delta;
    }
    assert.equal(buf.length, text.length);
    for (let k = 0; k < 50; k++) {
      const from = random(text.length + 2);
      const to = from + random(1200);
      assert.equal(buf.slice(from, to), text.slice(from, to));
      assert.equal(buf.charCodeAt(from), text.charCodeAt(from));
      for (const needle of ['</x>', 'b', 'ab</', 'zzz']) {
        assert.equal(buf.indexOf(needle, from), text.indexOf(needle, from), `${needle}@${from}`);
      }
      assert.equal(buf.startsWith('</x>', from), text.startsWith('</x>', from));
    }
  }
});

test('dropping the parts before an index keeps everything after it readable', () => {
  const buf = new TextBuffer();
  const text = 'x'.repeat(3000) + 'tail</x>' + 'y'.repeat(2000);
  for (let i = 0; i < text.length; i += 700) buf.append(text.slice(i, i + 700));
  buf.dropBefore(3000);
  assert.equal(buf.slice(3000, 3008), 'tail</x>');
  assert.equal(buf.indexOf('</x>', 3000), 3004);
  assert.equal(buf.slice(3000), text.slice(3000));
  assert.equal(buf.length, text.length);
});

test('skipJsonWhitespace stops at the first other character or the end', () => {
  const buf = new TextBuffer();
  buf.append(' \t\n\r x');
  assert.equal(skipJsonWhitespace(buf, 0), 5);
  assert.equal(skipJsonWhitespace(buf, 6), 6);
});
