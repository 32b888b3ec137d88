// The L0 exact-match cache: a hit returns the stored ids, the two add_special_tokens values are
// separate entries, stored ids cannot be changed by a caller, and eviction drops a sampled
// least-recently-used entry so a prompt in steady use survives a stream of one-off ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@switchyard/kit';
import { L0_MAX_TEXT_LENGTH, L0Cache } from '../../../src/tokenizer/l0-cache.js';

void describe('L0 cache', () => {
  it('returns the stored ids on a hit, per add_special_tokens value', () => {
    const cache = new L0Cache({ maxEntries: 10 });
    assert.equal(cache.get('hello', false), undefined);
    const stored = cache.set('hello', false, [1, 2]);
    assert.equal(cache.get('hello', false), stored);
    assert.deepEqual(cache.get('hello', false), [1, 2]);
    assert.equal(cache.get('hello', true), undefined, 'the other flag is another entry');
    cache.set('hello', true, [0, 1, 2]);
    assert.deepEqual(cache.get('hello', true), [0, 1, 2]);
    assert.deepEqual(cache.stats, { hits: 3, misses: 2, entries: 2 });
  });

  it('encodes texts past its length bound every time instead of keeping them', () => {
    const cache = new L0Cache({ maxEntries: 10 });
    const long = 'x'.repeat(L0_MAX_TEXT_LENGTH + 1);
    assert.deepEqual(cache.set(long, false, [1]), [1]);
    assert.equal(cache.get(long, false), undefined);
    assert.equal(cache.size, 0);
  });

  it('freezes what it stores so a caller cannot change a later hit', () => {
    const cache = new L0Cache({ maxEntries: 10 });
    const ids = cache.set('x', false, [5, 6]);
    assert.ok(Object.isFrozen(ids));
    assert.throws(() => (ids as number[]).push(7), TypeError);
    assert.deepEqual(cache.get('x', false), [5, 6]);
  });

  it('never grows past maxEntries', () => {
    const cache = new L0Cache({ maxEntries: 5, random: seededRandom(1) });
    for (let i = 0; i < 50; i++) cache.set(`t${i}`, false, [i]);
    assert.equal(cache.size, 5);
    assert.deepEqual(cache.get('t49', false), [49], 'the newest entry is kept');
  });

  it('keeps an entry in steady use while one-off entries stream through', () => {
    const cache = new L0Cache({ maxEntries: 10, random: seededRandom(7) });
    cache.set('system prompt', false, [1]);
    for (let i = 0; i < 500; i++) {
      assert.deepEqual(cache.get('system prompt', false), [1], `evicted after ${i} inserts`);
      cache.set(`one-off ${i}`, false, [i]);
    }
    // First-in-first-out would have dropped it after ten inserts.
    assert.equal(cache.size, 10);
  });

  it('evicts the least recently used of its sample', () => {
    // Eight draws over three entries: with this seed each is drawn, so the oldest use goes.
    const cache = new L0Cache({ maxEntries: 3, random: seededRandom(3) });
    cache.set('a', false, [1]);
    cache.set('b', false, [2]);
    cache.set('c', false, [3]);
    cache.get('a', false);
    cache.set('d', false, [4]);
    assert.equal(cache.get('b', false), undefined, 'b was used longest ago');
    assert.ok(cache.get('a', false) && cache.get('c', false) && cache.get('d', false));
  });
});
