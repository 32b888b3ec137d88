/**
 * Redis that stops answering without dropping the connection (CLIENT PAUSE stands in for a
 * stalled or overloaded server): commands time out, the store goes down and answers from its
 * fallback, and the commands that timed out still run once Redis resumes. A give-back is then
 * sent twice and a take both timed out here and ran there; Redis must still end up counting
 * exactly what the replicas hold, releasing nothing twice and keeping nothing extra.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { COMMAND_TIMEOUT_MS } from '../../../src/admission/store/redis-connection.js';
import { openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

const PAUSE_MS = COMMAND_TIMEOUT_MS + 1500;

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server.close();
});

test('timed-out give-backs and takes are reconciled exactly once Redis answers', async () => {
  const prefix = testPrefix();
  const [a, b] = (await openReplicas(server.url, prefix, 2, { replicas: 2 })) as [Replica, Replica];
  const probe = new RedisProbe(server.url, prefix);
  const key = 'decode:w1';
  try {
    const a1 = (await a.store.tryTake(key, 2, 4)).ticket;
    const b1 = (await b.store.tryTake(key, 1, 4)).ticket;
    assert.ok(a1 && b1);
    await probe.call('CLIENT', 'PAUSE', PAUSE_MS, 'WRITE');
    const pausedAt = Date.now();

    // Neither reaches Redis in time; both will run there once the pause ends.
    a.store.giveBack(a1, 2);
    const started = Date.now();
    const late = await b.store.tryTake(key, 1, 4);
    assert.ok(Date.now() - started < COMMAND_TIMEOUT_MS + 500, 'answered after the timeout');
    assert.equal(b.store.up, false);
    assert.ok(late.ticket, "b's fallback share is 2 and it holds 1");
    assert.equal((await b.store.tryTake(key, 1, 4)).ticket, undefined, 'share full');
    await waitFor(() => !a.store.up, 'a down after its give-back timed out');
    assert.ok(Date.now() - pausedAt < PAUSE_MS, 'all of this happened during the pause');

    await waitFor(() => a.store.up && b.store.up, 'both up after the pause', PAUSE_MS + 3000);
    // b1 and the late take; a1's give-back ran once (it was sent twice).
    assert.equal(await probe.total(key), 2);
    assert.deepEqual(Object.values(await probe.tickets(key)), [1, 1]);
    assert.equal(a.store.status().pendingGiveBacks + b.store.status().pendingGiveBacks, 0);

    b.store.giveBack(b1, 1);
    b.store.giveBack(late.ticket, 1);
    await waitFor(async () => !(await probe.exists(key)), 'every unit given back');
  } finally {
    probe.close();
    await Promise.all([a.store.close(), b.store.close()]);
  }
});

test('a take that timed out and was refused by the fallback is removed from Redis', async () => {
  const prefix = testPrefix();
  const [a] = (await openReplicas(server.url, prefix, 1, { replicas: 4 })) as [Replica];
  const probe = new RedisProbe(server.url, prefix);
  const key = 'prefill:w2';
  try {
    const a1 = (await a.store.tryTake(key, 1, 4)).ticket;
    assert.ok(a1);
    await probe.call('CLIENT', 'PAUSE', PAUSE_MS, 'WRITE');
    // Redis would grant it (2 of 4) once it resumes, but the fallback share is 1, already held.
    const refused = await a.store.tryTake(key, 1, 4);
    assert.equal(refused.ticket, undefined);
    assert.equal(a.store.status().pendingGiveBacks, 1, 'the unanswered take is owed');

    await waitFor(() => a.store.up, 'up after the pause', PAUSE_MS + 3000);
    assert.equal(await probe.total(key), 1, 'only a1 is counted');
    a.store.giveBack(a1, 1);
    await waitFor(async () => !(await probe.exists(key)), 'every unit given back');
  } finally {
    probe.close();
    await a.store.close();
  }
});
