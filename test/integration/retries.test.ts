// SMG's retry rules end to end: a retryable answer is retried on another worker, a
// non-retryable one is returned at once, attempts are capped by --retry-max-retries (total
// attempts), a stream that already sent bytes is never retried, and no lease survives.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(
  count: number,
  flags: string[] = [],
): Promise<{ fleet: SimWorker[]; gateway: Gateway }> {
  const fleet = await startSimFleet(count, { ttftMs: 1, itlMs: 1 });
  const gateway = await startTestGateway([
    '--policy',
    'round_robin',
    '--retry-initial-backoff-ms',
    '1',
    ...flags,
    '--worker-urls',
    ...fleet.map((w) => w.url),
  ]);
  cleanup.push(
    () => gateway.close(),
    async () => void (await Promise.all(fleet.map((w) => w.close()))),
  );
  await waitForReadyWorkers(gateway, count);
  return { fleet, gateway };
}

const body = { model: 'sim-model', prompt: 'retry me', max_tokens: 2 };
const completions = (w: SimWorker): number => w.stats().requests['/v1/completions'] ?? 0;

test('a 503 is retried on the next worker and the client sees the success', async () => {
  const { fleet, gateway } = await setup(2);
  const [bad, good] = fleet as [SimWorker, SimWorker];
  bad.setFaults({ errorRate: 1, errorStatus: 503 });
  // Round robin starts at the first registered worker, the failing one.
  const first = gateway.internals.registry.all()[0];
  assert.equal(first?.url, bad.url);
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-smg-routed-worker-id'), good.url);
  await res.arrayBuffer();
  assert.equal(completions(bad), 1);
  assert.equal(completions(good), 1);
  const m = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(m, 'smg_worker_retries_total', { worker_type: 'regular', endpoint: 'completions' }),
    1,
  );
  assert.equal(metricValue(m, 'smg_worker_retry_backoff_seconds_count', { attempt: '1' }), 1);
  await assertAllReleased(gateway);
});

test('a connection refused is retried on another worker', async () => {
  const { fleet, gateway } = await setup(2);
  const [dead, alive] = fleet as [SimWorker, SimWorker];
  await dead.close();
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-smg-routed-worker-id'), alive.url);
  await res.arrayBuffer();
  await assertAllReleased(gateway);
});

test('a non-retryable answer (400) is returned at once', async () => {
  const { fleet, gateway } = await setup(2);
  for (const w of fleet) w.setFaults({ errorRate: 1, errorStatus: 400 });
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 400);
  await res.arrayBuffer();
  assert.equal(
    fleet.reduce((n, w) => n + completions(w), 0),
    1,
  );
});

test('attempts stop at --retry-max-retries (total attempts) and the last answer is returned', async () => {
  const { fleet, gateway } = await setup(2, ['--retry-max-retries', '3']);
  for (const w of fleet) w.setFaults({ errorRate: 1, errorStatus: 502 });
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 502);
  assert.equal(res.headers.get('x-smg-error-code'), null, "the worker's own 502 is passed through");
  await res.arrayBuffer();
  assert.equal(
    fleet.reduce((n, w) => n + completions(w), 0),
    3,
  );
  const m = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(m, 'smg_worker_retries_total', { worker_type: 'regular', endpoint: 'completions' }),
    2,
  );
  assert.equal(
    metricValue(m, 'smg_worker_retries_exhausted_total', {
      worker_type: 'regular',
      endpoint: 'completions',
    }),
    1,
  );
  await assertAllReleased(gateway);
});

test('--disable-retries makes one attempt', async () => {
  const { fleet, gateway } = await setup(2, ['--disable-retries']);
  for (const w of fleet) w.setFaults({ errorRate: 1, errorStatus: 503 });
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 503);
  await res.arrayBuffer();
  assert.equal(
    fleet.reduce((n, w) => n + completions(w), 0),
    1,
  );
});

test('a stream that already sent bytes is not retried', async () => {
  const { fleet, gateway } = await setup(2);
  for (const w of fleet) w.setFaults({ dropAfterChunks: 1 });
  const res = await postJson(`${gateway.url}/v1/completions`, {
    ...body,
    stream: true,
    max_tokens: 5,
  });
  assert.equal(res.status, 200);
  const events = parseSseData(await res.text());
  assert.match(events.at(-1) ?? '', /upstream_stream_failed/);
  assert.equal(
    fleet.reduce((n, w) => n + completions(w), 0),
    1,
    'one send: no retry after the head',
  );
  await assertAllReleased(gateway);
});
