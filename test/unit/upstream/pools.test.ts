import assert from 'node:assert/strict';
import { lookup } from 'node:dns';
import { test } from 'node:test';
import { UpstreamPools } from '../../../src/upstream/pools.js';

const origin = 'http://127.0.0.1:9';

test('a pool lease releases once: a double release cannot close a pool another worker holds', async () => {
  const pools = new UpstreamPools({ idleTimeoutMs: 1000, requestTimeoutMs: 1000, lookup });
  const rank0 = pools.acquire(origin);
  const rank1 = pools.acquire(origin);
  assert.equal(rank0.pool, rank1.pool, 'workers of one origin share its pool');
  rank0.release();
  rank0.release();
  rank0[Symbol.dispose]();
  assert.equal(pools.get(origin), rank1.pool, 'still open for the other holder');
  rank1.release();
  assert.equal(pools.get(origin), undefined, 'the last release closes it');
  assert.equal(rank1.pool.closed, true);
  await pools.closeAll();
});
