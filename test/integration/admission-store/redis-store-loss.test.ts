/**
 * Losing Redis and getting it back. While it is gone every replica answers at once from its own
 * share of the limit (limit / replicas), counting the shared tickets it still holds; give-backs
 * are kept. When it is back (empty: nothing is persisted) the replicas adopt what they hold,
 * send what they kept, and only then call themselves up; Redis's total is then exactly what the
 * replicas hold, and zero once everything is given back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import type { RedisStore } from '../../../src/admission/store/redis-store.js';
import type { StoreTicket, TakeResult } from '../../../src/admission/store/types.js';
import { openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server.close();
});

/** A take that must answer promptly whatever Redis is doing. */
async function take(store: RedisStore, key: string, units: number, limit: number) {
  const started = Date.now();
  const result: TakeResult = await store.tryTake(key, units, limit);
  assert.ok(Date.now() - started < 1500, `answered in ${Date.now() - started} ms`);
  return result;
}

function held(result: TakeResult): StoreTicket {
  assert.ok(result.ticket, `granted (total ${result.total})`);
  return result.ticket;
}

test('Redis stopped and restarted empty: fallback shares, then adoption and no leak', async () => {
  const prefix = testPrefix();
  const [a, b] = (await openReplicas(server.url, prefix, 2, { replicas: 2 })) as [Replica, Replica];
  const probe = new RedisProbe(server.url, prefix);
  const key = 'decode:w1';
  try {
    const a1 = held(await take(a.store, key, 3, 8));
    const a2 = held(await take(a.store, key, 1, 8));
    const b1 = held(await take(b.store, key, 2, 8));
    assert.equal(await probe.total(key), 6);

    await server.stop();
    await waitFor(() => !a.store.up && !b.store.up, 'both replicas down');
    assert.deepEqual(a.upChanges, [false]);
    assert.equal(a.log.filter((l) => l.level === 'warn').length, 1, 'one warning per outage');

    // Each replica's share is floor(8 / 2) = 4, its shared tickets included.
    assert.equal((await take(a.store, key, 1, 8)).ticket, undefined, 'a holds 4 of its 4');
    assert.equal(a.store.seen(key), 4);
    const b2 = held(await take(b.store, key, 2, 8));
    assert.equal((await take(b.store, key, 1, 8)).ticket, undefined, 'b holds 4 of its 4');
    // A shared ticket given back while down frees room in the fallback, and is kept for Redis.
    a.freed.length = 0;
    a.store.giveBack(a2, 1);
    assert.deepEqual(a.freed, [key], 'local waiters woken');
    assert.equal(a.store.status().pendingGiveBacks, 1);
    const a3 = held(await take(a.store, key, 1, 8));
    b.store.giveBack(b1, 1);

    a.freed.length = 0;
    await server.restart();
    await waitFor(() => a.store.up && b.store.up, 'both replicas up again', 5000);
    assert.deepEqual(a.upChanges, [false, true]);
    assert.ok(a.freed.includes(key), 'waiters woken when the store came back');
    assert.equal(a.store.status().pendingGiveBacks, 0);
    // a: 3 + 1 (fallback); b: 1 (what is left of b1) + 2 (fallback).
    assert.equal(await probe.total(key), 7);
    assert.deepEqual(Object.values(await probe.tickets(key)).sort(), [1, 1, 2, 3]);
    // The shared limit is back in force over everything adopted.
    assert.equal((await take(b.store, key, 2, 8)).ticket, undefined);
    const b3 = held(await take(b.store, key, 1, 8));

    a.store.giveBack(a1, 3);
    a.store.giveBack(a3, 1);
    b.store.giveBack(b1, 1);
    b.store.giveBack(b2, 2);
    b.store.giveBack(b3, 1);
    await waitFor(async () => !(await probe.exists(key)), 'every unit given back');
    assert.equal(a.store.status().tickets + b.store.status().tickets, 0);
  } finally {
    probe.close();
    await Promise.all([a.store.close(), b.store.close()]);
  }
});

test('Redis killed with takes in flight: answered promptly, nothing leaked after restart', async () => {
  const prefix = testPrefix();
  const [a] = (await openReplicas(server.url, prefix, 1, { replicas: 2 })) as [Replica];
  const probe = new RedisProbe(server.url, prefix);
  const key = 'prefill:w2';
  try {
    // Takes racing the crash: some reach Redis, some do not, some get no answer.
    const racing = Array.from({ length: 20 }, () => take(a.store, key, 1, 4));
    await server.kill();
    const results = await Promise.all(racing);
    const tickets = results.flatMap((r) => (r.ticket ? [r.ticket] : []));
    assert.ok(tickets.length <= 4, `${tickets.length} granted`);
    assert.equal(a.store.up, false);

    await server.restart();
    await waitFor(() => a.store.up, 'up again', 5000);
    assert.equal(await probe.total(key), tickets.length, 'Redis counts what a holds');
    for (const t of tickets) a.store.giveBack(t, 1);
    await waitFor(async () => !(await probe.exists(key)), 'every unit given back');
  } finally {
    probe.close();
    await a.store.close();
  }
});
