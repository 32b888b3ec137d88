// SMG accepts 0 for several flags and gives it a meaning; Switchyard gives it the same one
// (docs/configuration.md, Validation): a 0 token rate limits by permits only, a 0 pool idle
// timeout keeps the upstream connection, a 0 probe timeout fails every probe.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { getGlobalDispatcher, request } from 'undici';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { probeHealth } from '../../src/workers/discovery/metadata.js';
import {
  assertAllReleased,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(flags: string[]): Promise<{ worker: SimWorker; gateway: Gateway }> {
  const worker = await startSimWorker({ ttftMs: 1, itlMs: 20 });
  const gateway = await startTestGateway([...flags, '--worker-urls', worker.url]);
  cleanup.push(
    () => gateway.close(),
    () => worker.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return { worker, gateway };
}

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

test('--rate-limit-tokens-per-second 0 limits by permits only: a finished response returns its permit', async () => {
  const { gateway } = await setup([
    '--max-concurrent-requests',
    '1',
    '--queue-size',
    '0',
    '--rate-limit-tokens-per-second',
    '0',
  ]);
  const ac = new AbortController();
  const held = await request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({ ...body, max_tokens: 200, stream: true }),
  });
  assert.equal(held.statusCode, 200);
  held.body.on('error', () => undefined);
  // The one permit is taken: with no queue the next request is refused at once.
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/completions`, body),
    429,
    'admission_queue_full',
  );
  ac.abort();
  await waitFor(() => gateway.internals.limiter?.inflight === 0, 'permit released');
  // No refill is needed: the permit came back with the response, so requests keep flowing.
  for (let i = 0; i < 3; i += 1) {
    const res = await postJson(`${gateway.url}/v1/completions`, body);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  assert.equal(gateway.internals.limiter?.inflight, 0);
  await assertAllReleased(gateway);
});

test('--upstream-pool-idle-timeout-secs 0 keeps the upstream connection between requests', async () => {
  const { worker, gateway } = await setup(['--upstream-pool-idle-timeout-secs', '0']);
  for (let i = 0; i < 3; i += 1) {
    const res = await postJson(`${gateway.url}/v1/completions`, body);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const pool = gateway.internals.pools.get(new URL(worker.url).origin);
  assert.ok(pool, 'no pool for the worker');
  assert.equal(pool.stats.connected, 1);
  await assertAllReleased(gateway);
});

test('a probe with a 0 s timeout fails, even against a healthy worker (SMG: zero client timeout)', async () => {
  const worker = await startSimWorker({});
  cleanup.push(() => worker.close());
  assert.equal(
    await probeHealth(`${worker.url}/health`, {
      timeoutMs: 1000,
      dispatcher: getGlobalDispatcher(),
    }),
    true,
  );
  for (let i = 0; i < 5; i += 1) {
    assert.equal(
      await probeHealth(`${worker.url}/health`, {
        timeoutMs: 0,
        dispatcher: getGlobalDispatcher(),
      }),
      false,
    );
  }
});
