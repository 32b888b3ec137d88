// The load monitor stores engine reports on workers (from /v1/loads, or /metrics when that is
// absent), drops stale reports, and drives overload protection: when every worker is vetoed the
// answer is a non-retryable 503 with Retry-After, counted as a selection shed.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { ManualClock } from '@switchyard/kit';
import {
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { startStubEngine, type StubEngine } from '../helpers/stub-engine.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(
  count: number,
  flags: string[],
  clock = new ManualClock(1_000_000),
): Promise<{ engines: StubEngine[]; gateway: Gateway; clock: ManualClock }> {
  const engines = await Promise.all(Array.from({ length: count }, () => startStubEngine()));
  const gateway = await startTestGateway(
    ['--load-monitor-interval', '3600', ...flags, '--worker-urls', ...engines.map((e) => e.url)],
    { clock },
  );
  cleanup.push(
    () => gateway.close(),
    async () => void (await Promise.all(engines.map((e) => e.close()))),
  );
  await waitForReadyWorkers(gateway, count);
  return { engines, gateway, clock };
}

const body = { model: 'stub-model', prompt: 'x', max_tokens: 1 };

test('reports from /v1/loads land on the worker and feed --engine-metrics', async () => {
  const { engines, gateway } = await setup(1, ['--engine-metrics']);
  const [e] = engines as [StubEngine];
  e.load = { running: 3, waiting: 7, tokenUsage: 0.42 };
  await gateway.internals.loadMonitor?.pollAll();
  const w = gateway.internals.registry.all()[0];
  assert.equal(w?.loadSnapshot?.ranks[0]?.waitingReqs, 7);
  const m = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(m, 'smg_engine_waiting_requests', {
      worker: e.url,
      model: 'stub-model',
      dp_rank: '0',
    }),
    7,
  );
  assert.equal(
    metricValue(m, 'smg_engine_running_requests', {
      worker: e.url,
      model: 'stub-model',
      dp_rank: '0',
    }),
    3,
  );
  assert.equal(
    metricValue(m, 'smg_engine_token_usage', { worker: e.url, model: 'stub-model', dp_rank: '0' }),
    0.42,
  );
});

test('an engine without /v1/loads is read from its /metrics gauges', async () => {
  const { engines, gateway } = await setup(1, []);
  const [e] = engines as [StubEngine];
  e.loadsEndpoint = false;
  e.load = { running: 2, waiting: 5, tokenUsage: 0.5 };
  await gateway.internals.loadMonitor?.pollAll();
  const rank = gateway.internals.registry.all()[0]?.loadSnapshot?.ranks[0];
  assert.equal(rank?.waitingReqs, 5);
  assert.equal(rank?.runningReqs, 2);
  assert.equal(rank?.tokenUsage, 0.5);
});

test('a stale report is dropped rather than left looking idle', async () => {
  const { engines, gateway, clock } = await setup(1, []);
  await gateway.internals.loadMonitor?.pollAll();
  const w = gateway.internals.registry.all()[0];
  assert.ok(w?.loadSnapshot);
  await (engines[0] as StubEngine).close();
  clock.advance(3 * 3600 * 1000 + 1);
  await gateway.internals.loadMonitor?.pollAll();
  assert.equal(w.loadSnapshot, undefined);
});

test('all workers over the waiting threshold: 503 shed with Retry-After, not retried', async () => {
  const { engines, gateway } = await setup(2, [
    '--worker-overload-waiting-requests',
    '10',
    '--load-monitor-interval',
    '7',
  ]);
  for (const e of engines) e.load = { running: 1, waiting: 10, tokenUsage: 0.1 };
  await gateway.internals.loadMonitor?.pollAll();
  const res = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(res.headers.get('retry-after'), '7');
  const error = await assertGatewayError(res, 503, 'no_available_workers');
  assert.match(error.message, /overloaded/);
  assert.equal(
    engines.reduce((n, e) => n + e.completions, 0),
    0,
  );
  let m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_worker_overload_shed_total', { stage: 'selection' }), 1);
  assert.equal(metricValue(m, 'smg_workers_overloaded', { model: 'stub-model' }), 2);
  assert.equal(
    metricValue(m, 'smg_worker_retries_total', { worker_type: 'regular', endpoint: 'completions' }),
    undefined,
  );
  // One worker recovers: traffic goes to it only.
  (engines[0] as StubEngine).load = { running: 1, waiting: 0, tokenUsage: 0.1 };
  await gateway.internals.loadMonitor?.pollAll();
  for (let i = 0; i < 3; i++) {
    const ok = await postJson(`${gateway.url}/v1/completions`, body);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-smg-routed-worker-id'), (engines[0] as StubEngine).url);
    await ok.arrayBuffer();
  }
  m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_workers_overloaded', { model: 'stub-model' }), 1);
});

test('--worker-overload-protection vetoes at 0.9 KV usage', async () => {
  const { engines, gateway } = await setup(1, ['--worker-overload-protection']);
  (engines[0] as StubEngine).load = { running: 1, waiting: 0, tokenUsage: 0.9 };
  await gateway.internals.loadMonitor?.pollAll();
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/completions`, body),
    503,
    'no_available_workers',
  );
  (engines[0] as StubEngine).load = { running: 1, waiting: 0, tokenUsage: 0.89 };
  await gateway.internals.loadMonitor?.pollAll();
  const ok = await postJson(`${gateway.url}/v1/completions`, body);
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
});
