/**
 * Leases in the Redis store: a replica that keeps running keeps its tickets however long its
 * requests take (renewal), and one that stops without giving back (a crash) loses them about
 * one lease later, so the others can take its units.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { LEASE_MS, openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server.close();
});

test('a running replica keeps its tickets over several leases', async () => {
  const prefix = testPrefix();
  const [a, b] = (await openReplicas(server.url, prefix, 2)) as [Replica, Replica];
  const probe = new RedisProbe(server.url, prefix);
  try {
    const key = 'decode:w1';
    const { ticket } = await a.store.tryTake(key, 2, 2);
    assert.ok(ticket);
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
    assert.equal((await b.store.tryTake(key, 1, 2)).ticket, undefined, 'still held');
    assert.equal(await probe.total(key), 2);
    a.store.giveBack(ticket, 2);
    await waitFor(async () => (await probe.total(key)) === 0, 'key back to zero');
  } finally {
    probe.close();
    await Promise.all([a.store.close(), b.store.close()]);
  }
});

test("a crashed replica's tickets lapse one lease later and free for the others", async () => {
  const prefix = testPrefix();
  const [crashed, b, c] = (await openReplicas(server.url, prefix, 3)) as [
    Replica,
    Replica,
    Replica,
  ];
  const probe = new RedisProbe(server.url, prefix);
  try {
    const key = 'prefill:w2';
    assert.ok((await crashed.store.tryTake(key, 3, 3)).ticket);
    // Closing stops renewal and gives nothing back, as a crash would.
    await crashed.store.close();
    const stoppedAt = Date.now();
    assert.equal((await b.store.tryTake(key, 1, 3)).ticket, undefined, 'not yet lapsed');
    assert.equal((await c.store.tryTake(key, 1, 3)).ticket, undefined);
    c.freed.length = 0;
    b.freed.length = 0;

    let taken = await b.store.tryTake(key, 3, 3);
    while (!taken.ticket) {
      assert.ok(Date.now() - stoppedAt < 3 * LEASE_MS, 'lapsed within about one lease');
      await new Promise((r) => setTimeout(r, 25));
      taken = await b.store.tryTake(key, 3, 3);
    }
    assert.ok(Date.now() - stoppedAt >= LEASE_MS / 3, 'not before its lease could end');
    // The take that reaped the lapsed ticket announced it: c's waiters were woken.
    await waitFor(() => c.freed.includes(key), 'replica c woken by the lapse');
    // b's own announcement skips b, so the reaping take woke b's other waiters itself.
    assert.deepEqual(b.freed, [key]);
    assert.equal(await probe.total(key), 3);
    b.store.giveBack(taken.ticket, 3);
    await waitFor(async () => !(await probe.exists(key)), 'the idle key deleted');
  } finally {
    probe.close();
    await Promise.all([b.store.close(), c.store.close()]);
  }
});

test("an abandoned key's structures expire in Redis without another take", async () => {
  const prefix = testPrefix();
  const [crashed] = (await openReplicas(server.url, prefix, 1)) as [Replica];
  const probe = new RedisProbe(server.url, prefix);
  try {
    const key = 'decode:w3';
    assert.ok((await crashed.store.tryTake(key, 1, 1)).ticket);
    await crashed.store.close();
    await waitFor(async () => !(await probe.exists(key)), 'the key expired', 3 * LEASE_MS);
  } finally {
    probe.close();
  }
});
