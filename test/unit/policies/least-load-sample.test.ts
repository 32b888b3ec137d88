// Above LEAST_LOAD_SAMPLE available workers, least_load scores a bounded random sample of
// distinct workers, and scores them all only when every sampled worker is capped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LEAST_LOAD_PARAMS } from '../../../src/policies/least-load-scorer.js';
import { LEAST_LOAD_SAMPLE, LeastLoadPolicy } from '../../../src/policies/least-load.js';
import { seededRandom } from '@switchyard/kit';
import { candidateSet } from '../../../src/workers/candidate-set.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';
import { holdLoad, snapshot } from './policy-fixtures.js';

function workers(n: number): Worker[] {
  return Array.from({ length: n }, (_, i) => testWorker(`w${i}`));
}

void describe('least_load on a large fleet', () => {
  it('reaches every worker: the sample is drawn anew for each request', () => {
    const ws = workers(100);
    const set = candidateSet(ws);
    const policy = new LeastLoadPolicy(DEFAULT_LEAST_LOAD_PARAMS, seededRandom(5));
    const seen = new Set<string>();
    // All tie, so each pick is uniform: missing one worker in 4000 picks has probability ~e^-40.
    for (let i = 0; i < 4000; i++) seen.add(policy.select(set)?.id ?? 'none');
    assert.equal(seen.size, 100);
  });

  it('picks the least loaded worker of its sample: never a busy one while half are idle', () => {
    const ws = workers(100);
    ws.forEach((w, i) => {
      if (i % 2 === 1) holdLoad(w, 5);
    });
    const set = candidateSet(ws);
    const policy = new LeastLoadPolicy(DEFAULT_LEAST_LOAD_PARAMS, seededRandom(9));
    // A sample of 32 distinct workers with no idle one among 50 idle: C(50,32)/C(100,32) < 1e-11.
    for (let i = 0; i < 500; i++) assert.equal(policy.select(set)?.load, 0);
  });

  it('reads the engine reports of a bounded number of workers per request', () => {
    const ws = workers(1000);
    let reads = 0;
    for (const w of ws) {
      const report = snapshot(0, { waitingReqs: 1, genThroughput: 1000 });
      // Counts every read of the worker's report (an own property shadows Worker's accessor).
      Object.defineProperty(w, 'loadSnapshot', {
        get: () => {
          reads++;
          return report;
        },
      });
    }
    const set = candidateSet(ws);
    const policy = new LeastLoadPolicy(DEFAULT_LEAST_LOAD_PARAMS, seededRandom(2));
    for (let i = 0; i < 10; i++) {
      reads = 0;
      assert.ok(policy.select(set));
      assert.ok(reads <= 4 * LEAST_LOAD_SAMPLE, `${reads} reports read for one request`);
    }
  });

  it('scores every worker when every sampled one is capped, so one free worker is still found', () => {
    const ws = workers(LEAST_LOAD_SAMPLE * 3);
    ws.forEach((w, i) => {
      w.loadSnapshot = snapshot(0, { waitingReqs: i === 77 ? 0 : 60 });
    });
    // Each pick also counts against w77's cap (its since-poll tally): 20 picks stay below 50.
    const policy = new LeastLoadPolicy(
      { ...DEFAULT_LEAST_LOAD_PARAMS, maxWaitingRequests: 50 },
      seededRandom(3),
    );
    const set = candidateSet(ws);
    for (let i = 0; i < 20; i++) assert.equal(policy.select(set)?.id, 'w77');
    ws[77]!.loadSnapshot = snapshot(1, { waitingReqs: 60 });
    assert.equal(policy.select(candidateSet(ws)), undefined, 'all capped: no worker, as SMG');
  });
});
