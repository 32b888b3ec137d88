import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POLICY_NAMES, policyReadsLoads } from '../../../src/policies/names.js';

const gatesOff = { balanceTokenUsageThreshold: 1, overloadTokenUsageThreshold: 1 };

test('the load-based policies read loads; the others do not', () => {
  const reading = POLICY_NAMES.filter((name) => policyReadsLoads(name, gatesOff));
  assert.deepEqual(reading, ['power_of_two', 'least_load']);
});

test('cache_aware reads loads only when one of its KV-usage gates is below 1.0', () => {
  assert.equal(
    policyReadsLoads('cache_aware', { ...gatesOff, balanceTokenUsageThreshold: 0.5 }),
    true,
  );
  assert.equal(
    policyReadsLoads('cache_aware', { ...gatesOff, overloadTokenUsageThreshold: 0.95 }),
    true,
  );
});
