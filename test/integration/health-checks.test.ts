// Health probes drive the status machine: a worker whose /health fails leaves rotation
// (not_ready), requests then get 503, it comes back when healthy, and with
// --remove-unhealthy-workers a worker that reaches failed is removed.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
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

const FAST_HEALTH = [
  '--health-check-interval-secs',
  '1',
  '--health-check-timeout-secs',
  '1',
  '--health-failure-threshold',
  '1',
  '--health-success-threshold',
  '1',
];
const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(extra: string[] = []): Promise<{ worker: SimWorker; gateway: Gateway }> {
  const worker = await startSimWorker({ model: 'sim-model' });
  const gateway = await startTestGateway([...FAST_HEALTH, ...extra, '--worker-urls', worker.url]);
  cleanup.push(
    () => worker.close(),
    () => gateway.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return { worker, gateway };
}

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

test('failing probes take a worker out of rotation and passing probes bring it back', async () => {
  const { worker, gateway } = await setup();
  const [w] = gateway.internals.registry.all();
  assert.ok(w);
  const transitions: string[] = [];
  gateway.internals.registry.on('health', (changed, from) =>
    transitions.push(`${from}->${changed.status}`),
  );
  worker.setFaults({ healthStatus: 503 });
  await waitFor(() => w.status === 'not_ready', 'not_ready', 4000);
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/completions`, body),
    503,
    'no_available_workers',
  );
  assert.equal((await fetch(`${gateway.url}/readiness`)).status, 503);
  const metrics = await scrapeMetrics(gateway);
  assert.equal(metricValue(metrics, 'smg_worker_health', { worker: worker.url }), 0);
  assert.ok(
    (metricValue(metrics, 'smg_worker_health_checks_total', {
      worker_type: 'regular',
      result: 'failure',
    }) ?? 0) >= 1,
  );
  worker.setFaults({});
  await waitFor(() => w.status === 'ready', 'ready again', 4000);
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.deepEqual(transitions, ['ready->not_ready', 'not_ready->ready']);
  await assertAllReleased(gateway);
});

test('with --remove-unhealthy-workers a worker that reaches failed is removed', async () => {
  const { worker, gateway } = await setup(['--remove-unhealthy-workers']);
  worker.setFaults({ healthStatus: 500 });
  // ready -> not_ready after 1 failure, not_ready -> failed after 3 more, then removal.
  await waitFor(() => gateway.internals.registry.all().length === 0, 'removal', 8000);
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/completions`, body),
    503,
    'no_available_workers',
  );
});
