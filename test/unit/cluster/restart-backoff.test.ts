/** The delay before a gateway process that died is forked again: doubling while it keeps dying. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restartDelayMs } from '../../../src/cluster/supervisor.js';

test('restart delay doubles from 100 ms with each exit in a row, capped at 30 s', () => {
  assert.deepEqual([1, 2, 3, 4].map(restartDelayMs), [100, 200, 400, 800]);
  assert.equal(restartDelayMs(12), 30_000);
  assert.equal(restartDelayMs(100), 30_000);
});
