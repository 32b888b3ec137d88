import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Policy, SelectInfo } from '../../../src/policies/policy.js';
import { RoundRobinPolicy } from '../../../src/policies/round-robin.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function worker(id: string): Worker {
  return testWorker(id);
}

const info: SelectInfo = testSelectInfo();

function picks(
  policy: RoundRobinPolicy,
  workers: readonly Worker[],
  n: number,
): (string | undefined)[] {
  return Array.from({ length: n }, () => policy.select(candidateSet(workers))?.id);
}

void describe('RoundRobinPolicy', () => {
  const a = worker('a');
  const b = worker('b');
  const c = worker('c');

  void it('cycles through the workers in list order', () => {
    const policy = new RoundRobinPolicy();
    assert.deepEqual(picks(policy, [a, b, c], 7), ['a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  void it('ignores the select info', () => {
    const policy: Policy = new RoundRobinPolicy();
    assert.equal(policy.select(candidateSet([a, b]), info)?.id, 'a');
    assert.equal(
      policy.select(candidateSet([a, b]), { ...info, model: 'other', leg: 'decode' })?.id,
      'b',
    );
  });

  void it('takes the modulus over the list it is given now', () => {
    const policy = new RoundRobinPolicy();
    assert.deepEqual(picks(policy, [a, b, c], 4), ['a', 'b', 'c', 'a']);
    // Counter is 4: 4 % 2 = 0, then 5 % 2 = 1.
    assert.deepEqual(picks(policy, [a, b], 2), ['a', 'b']);
    // Counter is 6: 6 % 3 = 0.
    assert.deepEqual(picks(policy, [a, b, c], 2), ['a', 'b']);
    // Counter is 8: a worker leaving shifts the rotation; 8 % 2 = 0 picks the first of [a, c].
    assert.deepEqual(picks(policy, [a, c], 3), ['a', 'c', 'a']);
  });

  void it('always picks the only worker', () => {
    assert.deepEqual(picks(new RoundRobinPolicy(), [b], 3), ['b', 'b', 'b']);
  });

  void it('returns undefined for an empty list without advancing', () => {
    const policy = new RoundRobinPolicy();
    assert.equal(policy.select(candidateSet([])), undefined);
    assert.equal(policy.select(candidateSet([a, b, c]))?.id, 'a');
    assert.equal(policy.select(candidateSet([])), undefined);
    assert.equal(policy.select(candidateSet([a, b, c]))?.id, 'b');
  });

  void it('keeps one counter per instance', () => {
    const p1 = new RoundRobinPolicy();
    const p2 = new RoundRobinPolicy();
    p1.select(candidateSet([a, b, c]));
    assert.equal(p2.select(candidateSet([a, b, c]))?.id, 'a');
    assert.equal(p1.select(candidateSet([a, b, c]))?.id, 'b');
  });
});
