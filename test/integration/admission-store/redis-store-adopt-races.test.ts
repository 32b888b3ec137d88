/**
 * A give-back while the adopt of its ticket is in flight. CLIENT PAUSE holds the adopt at the
 * server: a take times out (the store goes down and grants from its fallback under the same
 * ticket id), the store's next pass sends the adopt, and the test gives the ticket back while
 * the adopt waits. Whether the adopt then succeeds or times out (and still runs later), Redis
 * must end up counting exactly what the ticket still holds.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { COMMAND_TIMEOUT_MS } from '../../../src/admission/store/redis-connection.js';
import { RedisTicket } from '../../../src/admission/store/redis-ledger.js';
import { openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server.close();
});

/** Pauses Redis, takes through the timeout into the fallback, waits for the adopt to be sent. */
async function adoptInFlight(a: Replica, probe: RedisProbe, key: string, pauseMs: number) {
  await probe.call('CLIENT', 'PAUSE', pauseMs, 'WRITE');
  const { ticket } = await a.store.tryTake(key, 2, 4);
  assert.equal(a.store.up, false);
  assert.ok(ticket instanceof RedisTicket);
  await waitFor(() => ticket.adopting, 'the adopt sent', COMMAND_TIMEOUT_MS);
  return ticket;
}

async function withReplica(body: (a: Replica, probe: RedisProbe) => Promise<void>) {
  const prefix = testPrefix();
  const [a] = (await openReplicas(server.url, prefix, 1)) as [Replica];
  const probe = new RedisProbe(server.url, prefix);
  try {
    await body(a, probe);
  } finally {
    probe.close();
    await a.store.close();
  }
}

test('given back in part while its adopt is in flight, and the adopt succeeds', async () => {
  await withReplica(async (a, probe) => {
    const key = 'decode:w1';
    // The take times out at 1 s; the pause ends before the adopt sent after it can time out.
    const ticket = await adoptInFlight(a, probe, key, COMMAND_TIMEOUT_MS + 600);
    a.store.giveBack(ticket, 1);
    assert.equal(a.store.status().pendingGiveBacks, 0, 'left to the adopt to reconcile');
    await waitFor(() => a.store.up, 'up after the pause', 5000);
    assert.equal(await probe.total(key), 1);
    assert.deepEqual(Object.values(await probe.tickets(key)), [1]);
    a.store.giveBack(ticket, 1);
    await waitFor(async () => !(await probe.exists(key)), 'every unit given back');
  });
});

test('given back whole while its adopt is in flight, and the adopt times out', async () => {
  await withReplica(async (a, probe) => {
    const key = 'decode:w2';
    const ticket = await adoptInFlight(a, probe, key, 3 * COMMAND_TIMEOUT_MS);
    a.store.giveBack(ticket, 2);
    await waitFor(() => !ticket.adopting, 'the adopt timed out', 2 * COMMAND_TIMEOUT_MS);
    assert.equal(a.store.status().pendingGiveBacks, 1, 'owed: the adopt may still run');
    // The take and the adopt both run when the pause ends; the kept give-back follows them.
    await waitFor(() => a.store.up, 'up after the pause', 5000);
    // Up means nothing is owed any more: no waiting for a lease to lapse.
    assert.equal(await probe.exists(key), false, 'nothing left in Redis');
    assert.equal(a.store.status().pendingGiveBacks, 0);
    assert.equal(a.store.status().tickets, 0);
  });
});
