/**
 * The share of a limit one replica admits while Redis is unreachable: limit / replicas rounded
 * down but never 0 (a request must be able to run somewhere), the whole limit when the replica
 * count is unknown.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fallbackLimit } from '../../../src/admission/store/redis-ledger.js';

test('floor(limit / replicas), at least 1, the whole limit when replicas are unknown', () => {
  assert.equal(fallbackLimit(8, 2), 4);
  assert.equal(fallbackLimit(7, 2), 3);
  assert.equal(fallbackLimit(3, 4), 1);
  assert.equal(fallbackLimit(1, 8), 1);
  assert.equal(fallbackLimit(16, 1), 16);
  assert.equal(fallbackLimit(16, undefined), 16);
});
