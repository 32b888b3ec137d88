// Health probes drive the status machine: a worker whose /health fails leaves rotation
// (not_ready), requests then get 503, it comes back when healthy, and with
// --remove-unhealthy-workers a worker that reaches failed is removed. The gateway runs on a
// manual clock, so the 1 s probe interval passes in no real time.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  advanceUntil,
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  settleWhileAdvancing,
  startTestGateway,
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

async function setup(
  extra: string[] = [],
): Promise<{ worker: SimWorker; gateway: Gateway; clock: ManualClock }> {
  const worker = await startSimWorker({ model: 'sim-model' });
  const clock = new ManualClock();
  const gateway = await startTestGateway([...FAST_HEALTH, ...extra, '--worker-urls', worker.url], {
    clock,
  });
  cleanup.push(
    () => worker.close(),
    () => gateway.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return { worker, gateway, clock };
}

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

test('failing probes take a worker out of rotation and passing probes bring it back', async () => {
  const { worker, gateway, clock } = await setup();
  const [w] = gateway.internals.registry.all();
  assert.ok(w);
  const transitions: string[] = [];
  gateway.internals.registry.on('health', (changed, from) =>
    transitions.push(`${from}->${changed.status}`),
  );
  worker.setFaults({ healthStatus: 503 });
  await advanceUntil(clock, () => w.status === 'not_ready', 'not_ready', 1000);
  await assertGatewayError(
    // The shed is retried; its backoff runs on the gateway's clock.
    await settleWhileAdvancing(clock, postJson(`${gateway.url}/v1/completions`, body), 100),
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
  await advanceUntil(clock, () => w.status === 'ready', 'ready again', 1000);
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.deepEqual(transitions, ['ready->not_ready', 'not_ready->ready']);
  await assertAllReleased(gateway);
});

test('with --remove-unhealthy-workers a worker that reaches failed is removed', async () => {
  const { worker, gateway, clock } = await setup(['--remove-unhealthy-workers']);
  worker.setFaults({ healthStatus: 500 });
  // ready -> not_ready after 1 failure, not_ready -> failed after 3 more, then removal.
  await advanceUntil(clock, () => gateway.internals.registry.all().length === 0, 'removal', 1000);
  await assertGatewayError(
    // The shed is retried; its backoff runs on the gateway's clock.
    await settleWhileAdvancing(clock, postJson(`${gateway.url}/v1/completions`, body), 100),
    503,
    'no_available_workers',
  );
});
