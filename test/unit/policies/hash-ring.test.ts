import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashRing } from '../../../src/policies/hash-ring.js';

const FOUR = ['http://w0:8000', 'http://w1:8000', 'http://w2:8000', 'http://w3:8000'];
const FIFTH = 'http://w4:8000';
const KEYS = Array.from({ length: 10_000 }, (_, i) => `session-${i}`);
const any = (): boolean => true;

function owners(ring: HashRing): string[] {
  return KEYS.map((k) => ring.lookup(k, any) as string);
}

void describe('HashRing', () => {
  void it('adding a fifth worker moves about a fifth of the keys, all to the new worker', () => {
    const ring = new HashRing(FOUR);
    const before = owners(ring);
    ring.add(FIFTH);
    const after = owners(ring);
    let moved = 0;
    for (let i = 0; i < KEYS.length; i++) {
      if (before[i] === after[i]) continue;
      moved++;
      assert.equal(after[i], FIFTH, 'a key only ever moves to the new worker');
    }
    // Ideal is 20%; with 150 vnodes the share varies by a few points. Naive modulo moves 80%.
    assert.ok(moved > 0.08 * KEYS.length && moved < 0.35 * KEYS.length, `moved ${moved}`);
  });

  void it('removing a worker moves only the keys it owned', () => {
    const ring = new HashRing([...FOUR, FIFTH]);
    const before = owners(ring);
    ring.remove('http://w2:8000');
    const after = owners(ring);
    for (let i = 0; i < KEYS.length; i++) {
      if (before[i] !== 'http://w2:8000') assert.equal(after[i], before[i]);
      else assert.notEqual(after[i], 'http://w2:8000');
    }
    assert.equal(ring.size, 4);
    assert.equal(ring.has('http://w2:8000'), false);
  });

  void it('spreads keys over the workers within a wide band', () => {
    const counts = new Map<string, number>();
    for (const o of owners(new HashRing([...FOUR, FIFTH]))) counts.set(o, (counts.get(o) ?? 0) + 1);
    assert.equal(counts.size, 5);
    for (const [w, n] of counts) assert.ok(n > 1000 && n < 3000, `${w} owns ${n} of 10000`);
  });

  void it('is the same ring whatever order members joined in', () => {
    const built = new HashRing([...FOUR, FIFTH]);
    const grown = new HashRing();
    for (const m of [FIFTH, ...FOUR].reverse()) grown.add(m);
    assert.deepEqual(owners(grown), owners(built));
  });

  void it('walks clockwise past members the caller rejects', () => {
    const ring = new HashRing(FOUR);
    const first = ring.lookup('k', any) as string;
    const second = ring.lookup('k', (m) => m !== first) as string;
    assert.notEqual(second, first);
    assert.equal(
      ring.lookup('k', (m) => m === FOUR[3]),
      FOUR[3],
    );
    assert.equal(
      ring.lookup('k', () => false),
      undefined,
    );
  });

  void it('answers undefined when empty, and ignores duplicate adds and unknown removes', () => {
    const ring = new HashRing();
    assert.equal(ring.lookup('k', any), undefined);
    ring.add(FIFTH);
    ring.add(FIFTH);
    ring.remove('http://nobody:1');
    assert.equal(ring.size, 1);
    assert.equal(ring.lookup('k', any), FIFTH);
  });
});
