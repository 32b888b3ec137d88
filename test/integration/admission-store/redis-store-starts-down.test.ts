/**
 * A replica that starts while Redis is unreachable: open() gives up waiting after about two
 * seconds, warns, and serves from its fallback (the full limit when the replica count is not
 * known, with a warning saying so); once Redis appears the store adopts what it admitted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { OPEN_WAIT_MS } from '../../../src/admission/store/redis-store.js';
import { openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
  await server.kill();
});
after(async () => {
  await server.close();
});

test('opens down within the wait, admits from the fallback, adopts once Redis is there', async () => {
  const prefix = testPrefix();
  const started = Date.now();
  const [a] = (await openReplicas(server.url, prefix, 1)) as [Replica];
  const probe = new RedisProbe(server.url, prefix);
  const key = 'decode:w1';
  try {
    const waited = Date.now() - started;
    assert.ok(waited >= OPEN_WAIT_MS - 50 && waited < OPEN_WAIT_MS + 1000, `opened in ${waited}`);
    assert.equal(a.store.up, false);
    const warnings = a.log.filter((l) => l.level === 'warn').map((l) => l.msg);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!, /unreachable at start/);
    assert.match(warnings[1]!, /replica count unknown/);

    // No replica count: the fallback admits the full limit.
    const t1 = (await a.store.tryTake(key, 3, 4)).ticket;
    const t2 = (await a.store.tryTake(key, 1, 4)).ticket;
    assert.ok(t1 && t2);
    assert.equal((await a.store.tryTake(key, 1, 4)).ticket, undefined);
    a.store.giveBack(t2, 1);

    await server.restart();
    await waitFor(() => a.store.up, 'up once Redis is there', 5000);
    assert.deepEqual(a.upChanges, [true]);
    assert.equal(await probe.total(key), 3);
    assert.equal(a.log.filter((l) => l.level === 'warn').length, 2, 'no more warnings');
    a.store.giveBack(t1, 3);
    await waitFor(async () => !(await probe.exists(key)), 'every unit given back');
  } finally {
    probe.close();
    await a.store.close();
  }
});
