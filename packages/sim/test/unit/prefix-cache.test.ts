import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockKeys, PrefixCache } from '../../src/prefix-cache.js';

const ids = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

void describe('PrefixCache', () => {
  void it('keys full blocks only, chained so a key names the whole prefix', () => {
    const a = blockKeys(ids(40), 16);
    assert.equal(a.length, 2, 'the 8-token tail has no key');
    const b = blockKeys([...ids(16), ...ids(16, 100)], 16);
    assert.equal(b[0], a[0], 'same first block');
    assert.notEqual(b[1], a[1]);
    const c = blockKeys([...ids(16, 100), ...ids(16, 16)], 16);
    assert.notEqual(c[1], a[1], 'same second block after a different first one is another key');
  });

  void it('matches only computed blocks, and unpinned blocks are evicted leaf first', () => {
    const cache = new PrefixCache(16);
    const keys = blockKeys(ids(64), 16);
    const lease = cache.acquire(keys);
    assert.deepEqual(cache.plan(keys), { matched: 0, missing: 0, reused: 0 }, 'not ready yet');
    cache.markReady(lease);
    assert.equal(cache.plan(keys).matched, 4);
    assert.equal(cache.evict(1000), 0, 'pinned blocks stay');
    cache.release(lease);
    assert.equal(cache.pinnedTokens(), 0);
    assert.equal(cache.evict(16), 16);
    assert.equal(cache.plan(keys).matched, 3, 'the leaf went first');
    cache.flush();
    assert.equal(cache.residentTokens(), 0);
  });

  void it('drops blocks that were never computed when their request goes away', () => {
    const cache = new PrefixCache(16);
    cache.release(cache.acquire(blockKeys(ids(32), 16)));
    assert.equal(cache.residentTokens(), 0);
  });
});
