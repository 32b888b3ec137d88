import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PowerOfTwoPolicy } from '../../../src/policies/power-of-two.js';
import { seededRandom } from '@switchyard/kit';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';
import { holdLoad, openCircuitWorker, snapshot } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function counts(policy: PowerOfTwoPolicy, ws: readonly Worker[], n: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const id = policy.select(candidateSet(ws))?.id ?? 'none';
    out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

void describe('PowerOfTwoPolicy', () => {
  void it('returns the only available worker, or none', () => {
    const p = new PowerOfTwoPolicy(seededRandom(1));
    assert.equal(p.select(candidateSet([testWorker('a'), openCircuitWorker('b')]))?.id, 'a');
    assert.equal(p.select(candidateSet([openCircuitWorker('b')])), undefined);
  });

  void it('always compares two distinct workers', () => {
    // With two workers every draw is the pair, so the less loaded one always wins.
    const ws = [testWorker('a'), testWorker('b')];
    holdLoad(ws[0] as Worker, 5);
    const got = counts(new PowerOfTwoPolicy(seededRandom(5)), ws, 500);
    assert.deepEqual([...got], [['b', 500]]);
  });

  void it('is uniform over idle workers', () => {
    const ws = ['a', 'b', 'c', 'd'].map((n) => testWorker(n));
    const got = counts(new PowerOfTwoPolicy(seededRandom(11)), ws, 8000);
    // Binomial(8000, 1/4): sd ≈ 38.7; 1700..2300 is over 7 sd each way.
    assert.equal(got.size, 4);
    for (const [id, n] of got) assert.ok(n > 1700 && n < 2300, `${id}: ${n}`);
  });

  void it('picks the lighter of a random pair (loads 10, 5, 0 win 0, 1/3, 2/3 of the time)', () => {
    const ws = ['heavy', 'mid', 'idle'].map((n) => testWorker(n));
    holdLoad(ws[0] as Worker, 10);
    holdLoad(ws[1] as Worker, 5);
    const got = counts(new PowerOfTwoPolicy(seededRandom(21)), ws, 6000);
    // Binomial(6000, 1/3): sd ≈ 36.5; bands are over 8 sd wide.
    assert.equal(got.get('heavy') ?? 0, 0);
    assert.ok(
      (got.get('mid') ?? 0) > 1700 && (got.get('mid') ?? 0) < 2300,
      JSON.stringify([...got]),
    );
    assert.ok(
      (got.get('idle') ?? 0) > 3700 && (got.get('idle') ?? 0) < 4300,
      JSON.stringify([...got]),
    );
  });

  void it('scores engine reports with the least_load scorer at default parameters', () => {
    const ws = [testWorker('a'), testWorker('b')];
    // a: 1 waiting × p̄ 1024 / 2000 = 0.512 s; b: 1000 uncached / 2000 = 0.5 s.
    (ws[0] as Worker).loadSnapshot = snapshot(0, { waitingReqs: 1 });
    (ws[1] as Worker).loadSnapshot = snapshot(0, { waitingUncachedTokens: 1000 });
    assert.equal(new PowerOfTwoPolicy(seededRandom(1)).select(candidateSet(ws))?.id, 'b');
  });

  void it('credits the winner so a burst between reports alternates', () => {
    const ws = [testWorker('a'), testWorker('b')];
    for (const w of ws) w.loadSnapshot = snapshot(0);
    const p = new PowerOfTwoPolicy(seededRandom(4));
    const picks = Array.from({ length: 6 }, () => p.select(candidateSet(ws))?.id);
    for (let i = 1; i < picks.length; i += 2) assert.notEqual(picks[i], picks[i - 1]);
  });
});
