// The pod watch's reconnect delays: doubling from the initial step to the cap, jittered within
// [half, all] of each step, back to the initial step after progress.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff } from '../../../src/discovery/kubernetes/backoff.js';

const fixed = (value: number) => ({ next: () => value });

void describe('watch reconnect backoff', () => {
  it('doubles up to the cap and resets', () => {
    const full = new Backoff({ initialMs: 800, maxMs: 3000 }, fixed(0.999999));
    assert.deepEqual([full.next(), full.next(), full.next(), full.next()], [800, 1600, 3000, 3000]);
    full.reset();
    assert.equal(full.next(), 800);
  });

  it('never waits less than half a step', () => {
    const low = new Backoff({ initialMs: 800, maxMs: 30_000 }, fixed(0));
    assert.deepEqual([low.next(), low.next()], [400, 800]);
  });
});
