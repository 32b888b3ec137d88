// The policies wired into the real gateway: cache_aware keeps a shared prefix on one worker,
// consistent_hashing honours x-smg-target-worker strictly, and --routing-key-override pins a
// conversation (body rid, turn suffixes stripped) to one worker on any policy.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(flags: string[]): Promise<{ fleet: SimWorker[]; gateway: Gateway }> {
  const fleet = await startSimFleet(3, { ttftMs: 0, itlMs: 0 });
  const gateway = await startTestGateway([...flags, '--worker-urls', ...fleet.map((w) => w.url)]);
  cleanup.push(
    () => gateway.close(),
    async () => void (await Promise.all(fleet.map((w) => w.close()))),
  );
  await waitForReadyWorkers(gateway, 3);
  return { fleet, gateway };
}

async function routed(
  gateway: Gateway,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string | null> {
  const res = await postJson(`${gateway.url}/v1/chat/completions`, body, headers);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  return res.headers.get('x-smg-routed-worker-id');
}

const chat = (system: string, user: string) => ({
  model: 'sim-model',
  max_tokens: 1,
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ],
});

test('cache_aware (the default) sends a shared conversation prefix to the same worker', async () => {
  const { gateway } = await setup([]);
  const system = 'You are a careful assistant for the shipping company. '.repeat(20);
  const first = await routed(gateway, chat(system, 'question one'));
  for (let i = 0; i < 8; i++)
    assert.equal(await routed(gateway, chat(system, `question ${i}`)), first);
  // Unrelated prompts on an idle fleet go to the least-loaded worker (a miss), not only `first`.
  const others = new Set<string | null>();
  for (let i = 0; i < 6; i++)
    others.add(await routed(gateway, chat(`${i} totally different topic ${i} `.repeat(30), 'q')));
  assert.ok(others.size >= 2, `misses spread over workers, got ${[...others].join(',')}`);
  await assertAllReleased(gateway);
});

test('consistent_hashing: x-smg-target-worker picks that candidate or none', async () => {
  const { fleet, gateway } = await setup(['--policy', 'consistent_hashing']);
  const order = gateway.internals.registry.all().map((w) => w.url);
  for (const i of [0, 1, 2])
    assert.equal(
      await routed(gateway, chat('s', 'u'), { 'x-smg-target-worker': String(i) }),
      order[i],
    );
  const res = await postJson(`${gateway.url}/v1/chat/completions`, chat('s', 'u'), {
    'x-smg-target-worker': '7',
  });
  await assertGatewayError(res, 503, 'no_available_workers');
  // The same routing key keeps landing on the same worker.
  const k = await routed(gateway, chat('s', 'u'), { 'x-smg-routing-key': 'session-a' });
  for (let i = 0; i < 5; i++)
    assert.equal(
      await routed(gateway, chat('s', `u${i}`), { 'x-smg-routing-key': 'session-a' }),
      k,
    );
  assert.equal(fleet.length, 3);
});

test('--routing-key-override pins a conversation to one worker even on round_robin', async () => {
  const { gateway } = await setup(['--policy', 'round_robin', '--routing-key-override']);
  const first = await routed(gateway, { ...chat('s', 'turn 1'), rid: 'conv42_t1' });
  for (let t = 2; t < 7; t++)
    assert.equal(
      await routed(gateway, { ...chat('s', `turn ${t}`), rid: `conv42_t${t}_r1` }),
      first,
    );
  const spread = new Set<string | null>();
  for (let i = 0; i < 6; i++) spread.add(await routed(gateway, chat('s', `no key ${i}`)));
  assert.equal(spread.size, 3, 'requests without a key still rotate');
  await assertAllReleased(gateway);
});
