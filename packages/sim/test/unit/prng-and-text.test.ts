import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Mulberry32, hashInts, hashString } from '../../src/prng.js';
import { OutputStream, countTokens, promptLogprob, tokenIds } from '../../src/text.js';

function draw(stream: OutputStream, n: number): string {
  let text = '';
  for (let i = 0; i < n; i++) {
    stream.advance();
    text += stream.lastText;
  }
  return text;
}

void describe('Mulberry32', () => {
  void it('repeats its sequence for the same seed and differs for another', () => {
    const a = new Mulberry32(42);
    const b = new Mulberry32(42);
    const c = new Mulberry32(43);
    const sa = Array.from({ length: 8 }, () => a.nextUint32());
    const sb = Array.from({ length: 8 }, () => b.nextUint32());
    const sc = Array.from({ length: 8 }, () => c.nextUint32());
    assert.deepEqual(sa, sb);
    assert.notDeepEqual(sa, sc);
  });

  void it('draws floats in [0, 1) with a mean near 1/2', () => {
    const rng = new Mulberry32(7);
    let sum = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const x = rng.next();
      assert.ok(x >= 0 && x < 1);
      sum += x;
    }
    // sd of the mean = sqrt(1/12/n) ≈ 0.002; the band is over 6 sigma wide.
    assert.ok(Math.abs(sum / n - 0.5) < 0.015);
  });
});

void describe('hashing', () => {
  void it('is stable and seed-dependent', () => {
    assert.equal(hashString('abc'), hashString('abc'));
    assert.notEqual(hashString('abc'), hashString('abd'));
    assert.notEqual(hashString('abc', 1), hashString('abc', 2));
    assert.equal(hashInts([1, 2, 3]), hashInts([1, 2, 3]));
    assert.notEqual(hashInts([1, 2, 3]), hashInts([3, 2, 1]));
  });
});

void describe('tokenization rule', () => {
  void it('counts word runs and single punctuation characters', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('Hello, world!'), 4);
    assert.equal(countTokens('  snake_case  x1 '), 2);
    assert.equal(countTokens('naïve café: 3.5'), 6);
    assert.equal(
      countTokens('Hello, world!'),
      4,
      'the global regex state does not leak between calls',
    );
  });

  void it('gives one id per token, equal for equal tokens', () => {
    const ids = tokenIds('to be or not to be');
    assert.equal(ids.length, 6);
    assert.equal(ids[0], ids[4]);
    assert.equal(ids[1], ids[5]);
    assert.notEqual(ids[0], ids[1]);
  });

  void it('gives prompt logprobs in (-4, 0]', () => {
    for (let i = 0; i < 100; i++) {
      const lp = promptLogprob(1000 + i, i);
      assert.ok(lp <= 0 && lp > -4);
    }
  });
});

void describe('OutputStream', () => {
  void it('is deterministic per (seed, key, choice) and varies with each', () => {
    const base = draw(new OutputStream(0, 123, 0), 12);
    assert.equal(draw(new OutputStream(0, 123, 0), 12), base);
    assert.notEqual(draw(new OutputStream(1, 123, 0), 12), base);
    assert.notEqual(draw(new OutputStream(0, 124, 0), 12), base);
    assert.notEqual(draw(new OutputStream(0, 123, 1), 12), base);
  });

  void it('produces a prefix-stable stream of space-separated words', () => {
    const short = draw(new OutputStream(5, 9, 0), 3);
    const long = draw(new OutputStream(5, 9, 0), 10);
    assert.ok(long.startsWith(short));
    assert.equal(long.split(' ').length, 10);
    assert.ok(!long.startsWith(' '));
  });

  void it('counts tokens and exposes the id and logprob of the last one', () => {
    const s = new OutputStream(0, 1, 0);
    s.advance();
    s.advance();
    assert.equal(s.count, 2);
    assert.ok(s.lastId >= 1000);
    assert.ok(s.lastLogprob <= 0);
  });
});
