// round_robin spreads requests evenly over the ready workers; random stays within wide bands.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { seededRandom } from '@switchyard/kit';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function countRoutes(gateway: Gateway, n: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const res = await postJson(`${gateway.url}/v1/completions`, {
      model: 'sim-model',
      prompt: `p${i}`,
      max_tokens: 1,
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const routed = res.headers.get('x-smg-routed-worker-id') ?? '';
    counts.set(routed, (counts.get(routed) ?? 0) + 1);
  }
  return counts;
}

async function setup(
  policy: string,
  count: number,
  seed?: number,
): Promise<{ fleet: SimWorker[]; gateway: Gateway }> {
  const fleet = await startSimFleet(count, { ttftMs: 0, itlMs: 0 });
  const gateway = await startTestGateway(
    ['--policy', policy, '--worker-urls', ...fleet.map((w) => w.url)],
    seed === undefined ? {} : { random: seededRandom(seed) },
  );
  cleanup.push(
    () => gateway.close(),
    async () => void (await Promise.all(fleet.map((w) => w.close()))),
  );
  await waitForReadyWorkers(gateway, count);
  return { fleet, gateway };
}

test('round_robin gives each of 3 workers exactly a third of 30 sequential requests', async () => {
  const { fleet, gateway } = await setup('round_robin', 3);
  const counts = await countRoutes(gateway, 30);
  assert.equal(counts.size, 3);
  for (const w of fleet) assert.equal(counts.get(w.url), 10, `worker ${w.url}`);
  // The worker's own counters agree with the gateway's header.
  for (const w of fleet) assert.equal(w.stats().requests['/v1/completions'], 10);
  await assertAllReleased(gateway);
});

test('random spreads 90 requests over 3 workers within wide bands', async () => {
  const { fleet, gateway } = await setup('random', 3, 7);
  const counts = await countRoutes(gateway, 90);
  // Binomial(90, 1/3): mean 30, sd 4.5; [10, 50] is over 4 sigma either way (and the seed is fixed).
  for (const w of fleet) {
    const c = counts.get(w.url) ?? 0;
    assert.ok(c >= 10 && c <= 50, `worker ${w.url} got ${c}`);
  }
  await assertAllReleased(gateway);
});
