/**
 * Give-backs through the Redis store: they free units for every replica and wake the others'
 * waiters through pub/sub, a partial give-back frees only its part, and giving back twice
 * frees nothing more.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

let server: RedisServer;
let replicas: Replica[];
let probe: RedisProbe;
before(async () => {
  server = await RedisServer.start();
  const prefix = testPrefix();
  replicas = await openReplicas(server.url, prefix, 2);
  probe = new RedisProbe(server.url, prefix);
});
after(async () => {
  probe.close();
  await Promise.all(replicas.map((r) => r.store.close()));
  await server.close();
});

test('a give-back frees the units and wakes the other replica with the new total', async () => {
  const [a, b] = replicas as [Replica, Replica];
  const key = 'decode:w1';
  const taken = await a.store.tryTake(key, 4, 4);
  assert.ok(taken.ticket);
  const refused = await b.store.tryTake(key, 1, 4);
  assert.equal(refused.ticket, undefined);
  assert.equal(b.store.seen(key), 4, 'the refusal reports the total');

  a.store.giveBack(taken.ticket, 4);
  await waitFor(() => b.freed.includes(key), 'replica b woken for the key');
  assert.equal(b.store.seen(key), 0);
  const retried = await b.store.tryTake(key, 1, 4);
  assert.ok(retried.ticket);
  assert.equal(await probe.total(key), 1);
  b.store.giveBack(retried.ticket, 1);
  await waitFor(async () => (await probe.total(key)) === 0, 'key back to zero');
});

test('a partial give-back frees only its units; the ticket keeps the rest', async () => {
  const [a, b] = replicas as [Replica, Replica];
  const key = 'decode:w2';
  const { ticket } = await a.store.tryTake(key, 3, 3);
  assert.ok(ticket);
  b.freed.length = 0;

  a.store.giveBack(ticket, 2);
  assert.equal(ticket.units, 1);
  await waitFor(() => b.freed.includes(key), 'replica b woken by the partial give-back');
  assert.equal(b.store.seen(key), 1);
  assert.deepEqual(Object.values(await probe.tickets(key)), [1]);
  const two = await b.store.tryTake(key, 2, 3);
  assert.ok(two.ticket, 'the freed two fit');
  assert.equal((await b.store.tryTake(key, 1, 3)).ticket, undefined, 'nothing more');
  assert.equal(await probe.total(key), 3);
  a.store.giveBack(ticket, 1);
  b.store.giveBack(two.ticket, 2);
  await waitFor(async () => (await probe.total(key)) === 0, 'key back to zero');
});

test('giving back twice, or more than held, never frees more than the ticket held', async () => {
  const [a, b] = replicas as [Replica, Replica];
  const key = 'prefill:w3';
  const first = await a.store.tryTake(key, 2, 4);
  const other = await b.store.tryTake(key, 2, 4);
  assert.ok(first.ticket && other.ticket);

  a.store.giveBack(first.ticket, 5);
  a.store.giveBack(first.ticket, 2);
  a.store.giveBack(first.ticket, 1);
  assert.equal(first.ticket.units, 0);
  await waitFor(async () => (await probe.total(key)) === 2, 'only the first ticket freed');
  // Renewal rounds pass; b's units stay counted.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await probe.total(key), 2);
  assert.deepEqual(Object.values(await probe.tickets(key)), [2]);
  b.store.giveBack(other.ticket, 2);
  await waitFor(async () => !(await probe.exists(key)), 'the idle key deleted');
  assert.equal(a.store.status().tickets, 0);
  assert.equal(b.store.status().tickets, 0);
});
