import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_LEAST_LOAD_PARAMS,
  LeastLoadScorer,
  type LeastLoadParams,
} from '../../../src/policies/least-load-scorer.js';
import { LeastLoadPolicy } from '../../../src/policies/least-load.js';
import { seededRandom, type Random } from '@switchyard/kit';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';
import { holdLoad, openCircuitWorker, snapshot } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

/** With next() = 0 the reservoir always replaces, so a tie goes to the last tied worker. */
const lastOfTies: Random = { next: () => 0 };

function policy(
  params: Partial<LeastLoadParams> = {},
  random: Random = lastOfTies,
): LeastLoadPolicy {
  return new LeastLoadPolicy({ ...DEFAULT_LEAST_LOAD_PARAMS, ...params }, random);
}

function workers(...names: string[]): Worker[] {
  return names.map((n) => testWorker(n));
}

void describe('LeastLoadScorer', () => {
  const scorer = new LeastLoadScorer(DEFAULT_LEAST_LOAD_PARAMS);
  const fleetWithLoads = { hasLoads: true, nominalThroughput: 2000 };

  void it('scores queued uncached tokens over throughput, in seconds', () => {
    const [w] = workers('a');
    (w as Worker).loadSnapshot = snapshot(0, { waitingUncachedTokens: 4000, genThroughput: 1000 });
    assert.equal(scorer.score(w as Worker, fleetWithLoads), 4);
  });

  void it('falls back to waiting requests × p̄, and to the default throughput', () => {
    const [w] = workers('a');
    (w as Worker).loadSnapshot = snapshot(0, { waitingReqs: 3 });
    assert.equal(scorer.score(w as Worker, fleetWithLoads), (3 * 1024) / 2000);
  });

  void it('adds the KV barrier λ·k/(1−k), clamped below 1', () => {
    const [w] = workers('a');
    (w as Worker).loadSnapshot = snapshot(0, { tokenUsage: 0.5 });
    assert.equal(scorer.score(w as Worker, fleetWithLoads), 0.15);
    (w as Worker).loadSnapshot = snapshot(0, { tokenUsage: 1 });
    assert.ok(Math.abs(scorer.score(w as Worker, fleetWithLoads) - (0.15 * 0.999) / 0.001) < 1e-6);
  });

  void it('derives the nominal throughput from the positive reports', () => {
    const [a, b, c] = workers('a', 'b', 'c');
    (b as Worker).loadSnapshot = snapshot(0, { genThroughput: 1000 });
    (c as Worker).loadSnapshot = snapshot(0, { genThroughput: 3000 });
    assert.deepEqual(scorer.fleet([a as Worker, b as Worker, c as Worker]), {
      hasLoads: true,
      nominalThroughput: 2000,
    });
    assert.deepEqual(scorer.fleet([a as Worker]), { hasLoads: false, nominalThroughput: 2000 });
  });
});

void describe('LeastLoadPolicy', () => {
  void it('is join-shortest-queue on in-flight load when no worker reports', () => {
    const ws = workers('a', 'b', 'c');
    holdLoad(ws[0] as Worker, 2);
    holdLoad(ws[2] as Worker, 1);
    assert.equal(policy().select(candidateSet(ws))?.id, 'b');
  });

  void it('breaks ties uniformly at random', () => {
    const p = policy({}, seededRandom(3));
    const ws = workers('a', 'b', 'c');
    const counts = new Map<string, number>();
    for (let i = 0; i < 6000; i++) {
      const id = p.select(candidateSet(ws))?.id ?? 'none';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    // Binomial(6000, 1/3): sd ≈ 36.5; the band is over 8 sd each way.
    assert.equal(counts.size, 3);
    for (const [id, n] of counts) assert.ok(n > 1700 && n < 2300, `${id}: ${n}`);
  });

  void it('prefers the shortest expected wait among reporting workers', () => {
    const ws = workers('a', 'b');
    (ws[0] as Worker).loadSnapshot = snapshot(0, { waitingUncachedTokens: 4000 });
    (ws[1] as Worker).loadSnapshot = snapshot(0, { waitingUncachedTokens: 1000 });
    holdLoad(ws[1] as Worker, 50); // gateway in-flight is not part of a reporting worker's score
    assert.equal(policy().select(candidateSet(ws))?.id, 'b');
  });

  void it('credits the chosen worker until its next report, then resets', () => {
    const p = policy();
    const [a, b] = workers('a', 'b');
    (a as Worker).loadSnapshot = snapshot(0);
    (b as Worker).loadSnapshot = snapshot(0);
    const ws = [a as Worker, b as Worker];
    assert.equal(p.select(candidateSet(ws))?.id, 'b'); // tie → last
    assert.equal(p.select(candidateSet(ws))?.id, 'a'); // b carries p̄ since its report
    assert.equal(p.select(candidateSet(ws))?.id, 'b'); // tie again at p̄ each
    assert.equal(p.select(candidateSet(ws))?.id, 'a');
    // A fresh report for b clears its tally; a still carries 2·p̄ since its (older) report.
    (b as Worker).loadSnapshot = snapshot(10_000);
    assert.equal(p.select(candidateSet(ws))?.id, 'b');
    assert.equal(p.select(candidateSet(ws))?.id, 'b');
    assert.equal(p.select(candidateSet(ws))?.id, 'b'); // b: 2·p̄ vs a: 2·p̄ → tie → last
  });

  void it('scores a worker whose report was cleared (stale) by its in-flight load at the nominal rate', () => {
    const [a, b] = workers('a', 'b');
    (b as Worker).loadSnapshot = snapshot(0, { waitingUncachedTokens: 3000, genThroughput: 1000 }); // 3 s
    const leases = holdLoad(a as Worker, 2); // 2·1024/1000 = 2.048 s
    assert.equal(policy().select(candidateSet([a as Worker, b as Worker]))?.id, 'a');
    holdLoad(a as Worker, 1); // 3.072 s: busy, not idle, just because it has no report
    assert.equal(policy().select(candidateSet([a as Worker, b as Worker]))?.id, 'b');
    for (const l of leases) l.release();
  });

  void it('drops workers at the waiting cap, counting dispatches since the report', () => {
    const p = policy({ maxWaitingRequests: 2 });
    const [a, b] = workers('a', 'b');
    (a as Worker).loadSnapshot = snapshot(0, { waitingReqs: 2 });
    (b as Worker).loadSnapshot = snapshot(0, { waitingReqs: 1, waitingUncachedTokens: 99_000 });
    const ws = [a as Worker, b as Worker];
    assert.equal(p.select(candidateSet(ws))?.id, 'b'); // a is capped despite its lower score
    assert.equal(p.select(candidateSet(ws)), undefined); // b: 1 waiting + 1 sent ≥ 2; everyone capped
    const c = testWorker('c'); // no report: never capped
    assert.equal(p.select(candidateSet([...ws, c]))?.id, 'c');
  });

  void it('chooses a lone available worker directly, unless the cap excludes it', () => {
    const [a] = workers('a');
    (a as Worker).loadSnapshot = snapshot(0, { waitingReqs: 5 });
    assert.equal(policy().select(candidateSet([a as Worker]))?.id, 'a');
    assert.equal(policy({ maxWaitingRequests: 5 }).select(candidateSet([a as Worker])), undefined);
  });

  void it('only considers available workers', () => {
    const ws = [
      openCircuitWorker('open'),
      testWorker('down', { status: 'not_ready' }),
      testWorker('ok'),
    ];
    holdLoad(ws[2] as Worker, 10);
    assert.equal(policy().select(candidateSet(ws))?.id, 'ok');
    assert.equal(policy().select(candidateSet(ws.slice(0, 2))), undefined);
  });

  void it('forgets a removed worker’s tally', () => {
    const p = policy();
    const [a, b] = workers('a', 'b');
    (a as Worker).loadSnapshot = snapshot(0);
    (b as Worker).loadSnapshot = snapshot(0);
    assert.equal(p.select(candidateSet([a as Worker, b as Worker]))?.id, 'b');
    p.onWorkerRemoved(b as Worker);
    // Without the purge b would still carry p̄ and a would win outright.
    assert.equal(p.select(candidateSet([a as Worker, b as Worker]))?.id, 'b');
  });
});
