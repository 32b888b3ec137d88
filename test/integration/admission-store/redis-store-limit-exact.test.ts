/**
 * Three replicas racing for one worker's window through one Redis: the limit holds exactly,
 * however the takes interleave, and every unit given back leaves Redis at zero.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisServer } from '../../helpers/redis-server.js';
import type { StoreTicket } from '../../../src/admission/store/types.js';
import { openReplicas, RedisProbe, testPrefix, type Replica } from './replicas.js';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server.close();
});

async function withReplicas(
  n: number,
  body: (replicas: Replica[], probe: RedisProbe) => Promise<void>,
): Promise<void> {
  const prefix = testPrefix();
  const replicas = await openReplicas(server.url, prefix, n);
  const probe = new RedisProbe(server.url, prefix);
  try {
    await body(replicas, probe);
  } finally {
    probe.close();
    await Promise.all(replicas.map((r) => r.store.close()));
  }
}

test('200 racing single-unit takes of a window of 16 grant exactly 16', async () => {
  await withReplicas(3, async (replicas, probe) => {
    const key = 'decode:http://engine-a:30000';
    assert.ok(replicas.every((r) => r.store.up));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => replicas[i % 3]!.store.tryTake(key, 1, 16)),
    );
    const granted = results.filter((r) => r.ticket !== undefined);
    assert.equal(granted.length, 16);
    assert.equal(await probe.total(key), 16);
    // Every answer's total is within the limit, and a refusal saw the window full.
    for (const r of results) {
      assert.ok(r.total <= 16, `total ${r.total}`);
      if (!r.ticket) assert.equal(r.total, 16);
    }
    // A ticket goes back only through the store that issued it; another replica ignores it.
    const held = results.flatMap((r, i) =>
      r.ticket ? [[replicas[i % 3]!, r.ticket] as const] : [],
    );
    const [firstOwner, firstTicket] = held[0]!;
    const stranger = replicas.find((r) => r !== firstOwner)!;
    stranger.store.giveBack(firstTicket, 1);
    assert.equal(firstTicket.units, 1);
    assert.equal(stranger.store.status().pendingGiveBacks, 0);
    for (const [r, t] of held) r.store.giveBack(t, 1);
    await waitTotal(probe, key, 0);
    assert.equal(await probe.exists(key), false, 'an idle key is deleted');
  });
});

test('racing multi-unit takes never exceed the limit', async () => {
  await withReplicas(3, async (replicas, probe) => {
    const key = 'prefill:http://engine-b:30000';
    const units = Array.from({ length: 120 }, (_, i) => 1 + (i % 4));
    const results = await Promise.all(
      units.map((u, i) => replicas[i % 3]!.store.tryTake(key, u, 16)),
    );
    const held = results.reduce((sum, r, i) => sum + (r.ticket ? units[i]! : 0), 0);
    assert.ok(held <= 16, `held ${held}`);
    assert.equal(await probe.total(key), held);
    // The window filled up: every unit size was refused at least once, so nothing else fitted.
    assert.ok(held >= 13, `held ${held}`);
    const tickets: [Replica, StoreTicket][] = [];
    results.forEach((r, i) => r.ticket && tickets.push([replicas[i % 3]!, r.ticket]));
    for (const [r, t] of tickets) r.store.giveBack(t, t.units);
    await waitTotal(probe, key, 0);
  });
});

async function waitTotal(probe: RedisProbe, key: string, want: number): Promise<void> {
  const deadline = Date.now() + 3000;
  let total = await probe.total(key);
  while (total !== want) {
    if (Date.now() > deadline) assert.equal(total, want, `total of ${key}`);
    await new Promise((r) => setTimeout(r, 10));
    total = await probe.total(key);
  }
}
