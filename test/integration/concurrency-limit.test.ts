// --max-concurrent-requests: a permit is held for the whole response; waiters queue FIFO up to
// --queue-size for --queue-timeout-secs; full is 429 admission_queue_full, timeout is 503
// admission_queue_timeout, both with Retry-After: 2; a client that leaves the queue frees its
// place. The queue timeout runs on a manual clock, so it passes in no real time.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { ManualClock, type Clock } from '@switchyard/kit';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(
  flags: string[],
  clock?: Clock,
): Promise<{ worker: SimWorker; gateway: Gateway }> {
  const worker = await startSimWorker({ ttftMs: 1, itlMs: 40 });
  const gateway = await startTestGateway([...flags, '--worker-urls', worker.url], { clock });
  cleanup.push(
    () => gateway.close(),
    () => worker.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return { worker, gateway };
}

/** A streaming request that holds its permit until the returned function is called. */
async function hold(gateway: Gateway, tokens = 200): Promise<() => void> {
  const ac = new AbortController();
  const res = await request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({ model: 'sim-model', prompt: 'hold', max_tokens: tokens, stream: true }),
  });
  assert.equal(res.statusCode, 200);
  res.body.on('error', () => undefined);
  return () => ac.abort();
}

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

test('queue full is 429 and queue timeout is 503, both with Retry-After: 2', async () => {
  const clock = new ManualClock();
  const { gateway } = await setup(
    ['--max-concurrent-requests', '1', '--queue-size', '1', '--queue-timeout-secs', '1'],
    clock,
  );
  const release = await hold(gateway);
  const queued = postJson(`${gateway.url}/v1/completions`, body);
  await waitFor(() => gateway.internals.limiter?.queued === 1, 'one waiter');
  const full = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(full.headers.get('retry-after'), '2');
  await assertGatewayError(full, 429, 'admission_queue_full');
  clock.advance(999);
  assert.equal(gateway.internals.limiter?.queued, 1, 'still queued 1 ms before the timeout');
  clock.advance(1);
  const timedOut = await queued;
  assert.equal(timedOut.headers.get('retry-after'), '2');
  await assertGatewayError(timedOut, 503, 'admission_queue_timeout');
  release();
  await waitFor(() => gateway.internals.limiter?.inflight === 0, 'permit released');
  const m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_admission_queue_rejected_total', { reason: 'queue_full' }), 1);
  assert.equal(metricValue(m, 'smg_admission_queue_rejected_total', { reason: 'timeout' }), 1);
  assert.equal(metricValue(m, 'smg_admission_inflight'), 0);
  assert.equal(metricValue(m, 'smg_admission_queue_depth'), 0);
  await assertAllReleased(gateway);
});

test('a waiter is admitted when the permit is released, in FIFO order', async () => {
  const { gateway } = await setup(['--max-concurrent-requests', '1', '--queue-size', '10']);
  const release = await hold(gateway);
  const order: number[] = [];
  const waiters = [0, 1, 2].map(async (i) => {
    await waitFor(
      () => (gateway.internals.limiter?.queued ?? 0) >= i,
      `waiter ${i} queued in turn`,
    );
    const res = await postJson(`${gateway.url}/v1/completions`, { ...body, prompt: `w${i}` });
    order.push(i);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });
  await waitFor(() => gateway.internals.limiter?.queued === 3, 'three waiters');
  release();
  await Promise.all(waiters);
  assert.deepEqual(order, [0, 1, 2]);
  await assertAllReleased(gateway);
});

test('queue size 0 rejects at once; a client that leaves the queue frees its place', async () => {
  const noQueue = await setup(['--max-concurrent-requests', '1', '--queue-size', '0']);
  const release = await hold(noQueue.gateway);
  await assertGatewayError(
    await postJson(`${noQueue.gateway.url}/v1/completions`, body),
    429,
    'admission_queue_full',
  );
  release();

  const { gateway } = await setup(['--max-concurrent-requests', '1', '--queue-size', '1']);
  const release2 = await hold(gateway);
  const ac = new AbortController();
  const leaving = request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: ac.signal,
  });
  await waitFor(() => gateway.internals.limiter?.queued === 1, 'queued');
  ac.abort();
  await assert.rejects(leaving);
  await waitFor(() => gateway.internals.limiter?.queued === 0, 'left the queue');
  release2();
  await waitFor(() => gateway.internals.limiter?.inflight === 0, 'released');
  const ok = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
});
