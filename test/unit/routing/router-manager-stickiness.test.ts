// With a routing key, the IGW pool choice is sticky: a conversation keeps its pool (and its
// prefix cache) while the pool sizes are unchanged, and a resize moves only the keys it must.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterType } from '../../../src/routing/router.js';
import { assertShare } from '../../helpers/share.js';
import { ctxFor, harness, type Harness } from './router-manager-fixtures.js';

const KEYS = Array.from({ length: 4000 }, (_, i) => `conversation-${i}`);

function poolsByKey(h: Harness): Map<string, RouterType> {
  return new Map(KEYS.map((k) => [k, h.manager.choose(ctxFor({ routingKey: k })).router.type]));
}

function pdCount(pools: Map<string, RouterType>): number {
  return [...pools.values()].filter((t) => t === 'http-pd').length;
}

describe('router manager stickiness', () => {
  it('keeps a key on one pool while the sizes are unchanged', () => {
    const h = harness();
    h.add('prefill', 2);
    h.add('decode', 2);
    h.add('regular', 6);
    const first = h.manager.choose(ctxFor({ routingKey: 'conversation-a' })).router.type;
    for (let i = 0; i < 200; i++) {
      // Unkeyed traffic in between draws from the random source; the keyed choice must not move.
      h.manager.choose(ctxFor());
      assert.equal(h.manager.choose(ctxFor({ routingKey: 'conversation-a' })).router.type, first);
    }
  });

  it('still splits distinct keys by weight', () => {
    const h = harness();
    h.add('prefill', 2);
    h.add('decode', 2);
    h.add('regular', 6);
    assertShare(pdCount(poolsByKey(h)), KEYS.length, 0.4, 'keyed PD share');
  });

  it('moves only keys of the grown slice when PD grows, and restores them when it shrinks back', () => {
    const h = harness();
    h.add('prefill', 1);
    h.add('decode', 1);
    h.add('regular', 6);
    const before = poolsByKey(h);
    const [prefill] = h.add('prefill', 1);
    const [decode] = h.add('decode', 1);
    const grown = poolsByKey(h);
    for (const [key, pool] of before) {
      if (pool === 'http-pd')
        assert.equal(grown.get(key), 'http-pd', `${key} left PD when PD grew`);
    }
    // PD went from 2/8 to 4/10 of the traffic: about 15 % of keys move, not a reshuffle.
    assertShare(pdCount(grown) - pdCount(before), KEYS.length, 0.4 - 0.25, 'keys moved to PD');

    assert.ok(prefill && decode);
    h.registry.remove(prefill.id);
    h.registry.remove(decode.id);
    assert.deepEqual(poolsByKey(h), before, 'the same sizes give the same choices');
  });

  it('never pins a key to a pool that has lost its last available worker', () => {
    const h = harness();
    const [prefill] = h.add('prefill', 1);
    h.add('decode', 1);
    h.add('regular', 1);
    const onPd = KEYS.filter(
      (k) => h.manager.choose(ctxFor({ routingKey: k })).router.type === 'http-pd',
    );
    assert.ok(onPd.length > 0 && prefill);
    h.registry.setStatus(prefill, 'not_ready');
    for (const k of onPd)
      assert.equal(h.manager.choose(ctxFor({ routingKey: k })).router.type, 'http-regular');
  });
});
