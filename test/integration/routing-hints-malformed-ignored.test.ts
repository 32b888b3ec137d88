// Malformed routing hints are dropped as SMG drops them (header_utils.rs): the request is routed
// as if the hint were absent and the drop is counted; a malformed x-smg-target-worker is a pin
// that matches no worker under consistent_hashing, as SMG's target_worker_miss.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

let worker: SimWorker;
let roundRobin: Gateway;
let hashing: Gateway;

before(async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  roundRobin = await startTestGateway(['--worker-urls', worker.url, '--policy', 'round_robin']);
  hashing = await startTestGateway(['--worker-urls', worker.url, '--policy', 'consistent_hashing']);
  await waitForReadyWorkers(roundRobin, 1);
  await waitForReadyWorkers(hashing, 1);
});

after(async () => {
  await roundRobin.close();
  await hashing.close();
  await worker.close();
});

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

async function ignoredCount(gateway: Gateway, header: string): Promise<number> {
  return (
    metricValue(await scrapeMetrics(gateway), 'smg_routing_hint_ignored_total', { header }) ?? 0
  );
}

for (const [name, headers, header] of [
  ['an over-long routing key', { 'x-smg-routing-key': 'k'.repeat(129) }, 'x-smg-routing-key'],
  ['an empty routing key', { 'x-smg-routing-key': '' }, 'x-smg-routing-key'],
  ['a routing key that is not UTF-8', { 'x-smg-routing-key': 'caf\u00e9' }, 'x-smg-routing-key'],
  ['a bad routing token', { 'x-smg-routing-tokens': '1,2,x' }, 'x-smg-routing-tokens'],
  ['a routing token with a space', { 'x-smg-routing-tokens': '1, 2' }, 'x-smg-routing-tokens'],
  [
    'too many routing tokens',
    { 'x-smg-routing-tokens': Array.from({ length: 513 }, () => '1').join(',') },
    'x-smg-routing-tokens',
  ],
  [
    'a non-numeric x-smg-target-worker (round_robin ignores the header)',
    { 'x-smg-target-worker': 'first' },
    'x-smg-target-worker',
  ],
] as const) {
  test(`${name} is ignored and counted: the request is served`, async () => {
    for (const gateway of header === 'x-smg-target-worker' ? [roundRobin] : [roundRobin, hashing]) {
      const before = await ignoredCount(gateway, header);
      const res = await postJson(`${gateway.url}/v1/completions`, body, headers);
      assert.equal(res.status, 200, await res.clone().text());
      await res.arrayBuffer();
      assert.equal(await ignoredCount(gateway, header), before + 1);
    }
  });
}

test('a non-numeric x-smg-target-worker under consistent_hashing misses: 503, never another worker', async () => {
  const served = worker.stats().requests['/v1/completions'] ?? 0;
  const before = await ignoredCount(hashing, 'x-smg-target-worker');
  await assertGatewayError(
    await postJson(`${hashing.url}/v1/completions`, body, { 'x-smg-target-worker': '-1' }),
    503,
    'no_available_workers',
  );
  assert.equal(await ignoredCount(hashing, 'x-smg-target-worker'), before + 1);
  assert.equal(worker.stats().requests['/v1/completions'] ?? 0, served);
});

test('valid hints at their caps are used and not counted', async () => {
  const before = await ignoredCount(hashing, 'x-smg-routing-key');
  const ok = await postJson(`${hashing.url}/v1/completions`, body, {
    'x-smg-routing-key': 'k'.repeat(128),
    'x-smg-target-worker': '+0',
    'x-smg-routing-tokens': '1,2,4294967295',
  });
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
  const text = await scrapeMetrics(hashing);
  assert.equal(
    metricValue(text, 'smg_routing_hint_ignored_total', { header: 'x-smg-routing-key' }) ?? 0,
    before,
  );
  assert.equal(
    metricValue(text, 'smg_consistent_hashing_policy_branch_total', {
      branch: 'target_worker_hit',
    }),
    1,
  );
});

test('no load lease is left behind', async () => {
  await assertAllReleased(roundRobin);
  await assertAllReleased(hashing);
});
