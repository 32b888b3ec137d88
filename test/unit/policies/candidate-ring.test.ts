// A policy's hash ring is kept across requests: the same candidates never rebuild it, and a
// membership change touches only the workers that joined or left.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CandidateRing } from '../../../src/policies/candidate-ring.js';
import { testWorker } from '../../helpers/workers.js';

void describe('CandidateRing', () => {
  it('keeps its ring for the same candidates, in the same array or an equal one', () => {
    const workers = ['a', 'b', 'c'].map((n) => testWorker(n));
    const ring = new CandidateRing();
    ring.sync(workers);
    const built = ring.ring;
    ring.sync(workers);
    ring.sync(workers.slice());
    assert.equal(ring.ring, built);
  });

  it('updates the ring in place when a worker joins or leaves', () => {
    const workers = ['a', 'b', 'c'].map((n) => testWorker(n));
    const ring = new CandidateRing();
    ring.sync(workers);
    const built = ring.ring;
    ring.sync([...workers, testWorker('d')]);
    assert.equal(ring.ring, built);
    assert.deepEqual([...built.members()].sort(), [
      'http://a:8000',
      'http://b:8000',
      'http://c:8000',
      'http://d:8000',
    ]);
    ring.sync(workers.slice(1));
    assert.deepEqual([...ring.ring.members()].sort(), ['http://b:8000', 'http://c:8000']);
  });
});
