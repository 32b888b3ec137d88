import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RandomPolicy } from '../../../src/policies/random.js';
import type { Random } from '@switchyard/kit';
import { randomIndex, seededRandom } from '@switchyard/kit';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function worker(id: string): Worker {
  return testWorker(id);
}

const workers = [worker('a'), worker('b'), worker('c')];

function sequence(seed: number, n: number): (string | undefined)[] {
  const policy = new RandomPolicy(seededRandom(seed));
  return Array.from({ length: n }, () => policy.select(candidateSet(workers))?.id);
}

void describe('RandomPolicy', () => {
  void it('spreads 6000 picks over 3 workers evenly', () => {
    // Binomial(6000, 1/3): mean 2000, sigma ≈ 36.5, so 1700..2300 is more than 8 sigma wide.
    for (const seed of [1, 42, 20240601]) {
      const counts = new Map<string, number>();
      for (const id of sequence(seed, 6000)) {
        assert.ok(id !== undefined);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      assert.deepEqual([...counts.keys()].sort(), ['a', 'b', 'c']);
      for (const [id, n] of counts)
        assert.ok(n >= 1700 && n <= 2300, `seed ${seed}: ${id} picked ${n} times`);
    }
  });

  void it('is deterministic for a seed', () => {
    assert.deepEqual(sequence(7, 200), sequence(7, 200));
  });

  void it('differs between seeds', () => {
    assert.notDeepEqual(sequence(7, 200), sequence(8, 200));
  });

  void it('maps the random draw to an index: low draws pick the first worker, high draws the last', () => {
    const fixed = (v: number): Random => ({ next: () => v });
    assert.equal(new RandomPolicy(fixed(0)).select(candidateSet(workers))?.id, 'a');
    assert.equal(new RandomPolicy(fixed(0.34)).select(candidateSet(workers))?.id, 'b');
    assert.equal(new RandomPolicy(fixed(0.999999)).select(candidateSet(workers))?.id, 'c');
  });

  void it('returns undefined for an empty list', () => {
    assert.equal(new RandomPolicy(seededRandom(1)).select(candidateSet([])), undefined);
  });
});

void describe('seededRandom and randomIndex', () => {
  void it('draws floats in [0, 1)', () => {
    const r = seededRandom(123);
    for (let i = 0; i < 10000; i++) {
      const v = r.next();
      assert.ok(v >= 0 && v < 1, `draw ${i} = ${v}`);
    }
  });

  void it('randomIndex stays in [0, n)', () => {
    assert.equal(randomIndex({ next: () => 0 }, 5), 0);
    assert.equal(randomIndex({ next: () => 0.9999999 }, 5), 4);
  });
});
