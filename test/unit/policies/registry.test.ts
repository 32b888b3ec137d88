import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { POLICY_NAMES } from '../../../src/policies/names.js';
import { createPolicy } from '../../../src/policies/registry.js';
import { StickyOverridePolicy } from '../../../src/policies/sticky-override.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { testDeps } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

void describe('createPolicy', () => {
  for (const name of POLICY_NAMES) {
    void it(`builds ${name}, which selects among ready workers`, () => {
      const policy = createPolicy(name, 'm', testDeps());
      try {
        assert.equal(policy.name, name);
        const workers = [testWorker('a'), testWorker('b')];
        const chosen = policy.select(
          candidateSet(workers),
          testSelectInfo({ text: 'hello', routingKey: 'k' }),
        );
        assert.ok(chosen && workers.includes(chosen));
        assert.equal(
          policy.select(candidateSet([testWorker('x', { status: 'not_ready' })]), testSelectInfo()),
          undefined,
        );
      } finally {
        policy.close?.();
      }
    });
  }

  void it('wraps every policy but manual for --routing-key-override', () => {
    const deps = { ...testDeps(), stickyOverride: true };
    for (const name of POLICY_NAMES) {
      const policy = createPolicy(name, 'm', deps);
      assert.equal(policy instanceof StickyOverridePolicy, name !== 'manual', name);
      assert.equal(policy.name, name);
      policy.close?.();
    }
  });
});
