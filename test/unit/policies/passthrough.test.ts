import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassthroughPolicy } from '../../../src/policies/passthrough.js';
import { createPolicy } from '../../../src/policies/registry.js';
import { testWorker } from '../../helpers/workers.js';
import { testDeps } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

void describe('PassthroughPolicy (SMG passthrough)', () => {
  void it('is named passthrough and built by createPolicy', () => {
    assert.equal(new PassthroughPolicy().name, 'passthrough');
    assert.ok(createPolicy('passthrough', 'm', testDeps()) instanceof PassthroughPolicy);
  });

  void it('sends every request to the only worker', () => {
    const policy = new PassthroughPolicy();
    const only = testWorker('a');
    for (let i = 0; i < 10; i++) assert.equal(policy.select(candidateSet([only])), only);
  });

  void it('always picks the first available worker, never spreading', () => {
    const policy = new PassthroughPolicy();
    const workers = [testWorker('a'), testWorker('b'), testWorker('c')];
    const picks = new Set(
      Array.from({ length: 100 }, () => policy.select(candidateSet(workers))?.id),
    );
    assert.deepEqual([...picks], ['a']);
  });

  void it('skips a first worker that is not available', () => {
    const policy = new PassthroughPolicy();
    const workers = [testWorker('a', { status: 'not_ready' }), testWorker('b'), testWorker('c')];
    assert.equal(policy.select(candidateSet(workers))?.id, 'b');
  });

  void it('returns none when no worker is available', () => {
    const policy = new PassthroughPolicy();
    assert.equal(
      policy.select(candidateSet([testWorker('a', { status: 'not_ready' })])),
      undefined,
    );
    assert.equal(policy.select(candidateSet([])), undefined);
  });

  void it('warns once, not per request, when several workers are candidates', () => {
    const warnings: number[] = [];
    const policy = new PassthroughPolicy((n) => warnings.push(n));
    const workers = [testWorker('a'), testWorker('b')];
    policy.select(candidateSet([workers[0]!]));
    assert.deepEqual(warnings, []);
    for (let i = 0; i < 5; i++) policy.select(candidateSet(workers));
    assert.deepEqual(warnings, [2]);
  });
});
