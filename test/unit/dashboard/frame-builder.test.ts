import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition } from '../../../src/dashboard/exposition.js';
import { FrameBuilder } from '../../../src/dashboard/frame-builder.js';
import { percentiles } from '../../../src/dashboard/histogram.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';

const ROUTER = { router_type: 'http', backend_type: 'regular', model: 'm', endpoint: 'chat' };

function fleet(metrics: GatewayMetrics): void {
  metrics.fleetInfo.bind({
    workers: () => [
      {
        worker: 'http://d:1',
        workerType: 'decode',
        runtime: 'sglang',
        connectionMode: 'http',
        model: 'm',
      },
      {
        worker: 'http://p:1',
        workerType: 'prefill',
        runtime: 'sglang',
        connectionMode: 'http',
        model: 'm',
      },
      {
        worker: 'http://r:1',
        workerType: 'regular',
        runtime: 'vllm',
        connectionMode: 'grpc',
        model: 'm',
      },
    ],
    decodeWindows: () => [['http://d:1', 16]],
    prefillLimit: () => 4,
  });
  for (const w of ['http://d:1', 'http://p:1', 'http://r:1'])
    metrics.workerHealth.set({ worker: w }, 1);
  metrics.workerHealth.set({ worker: 'http://r:1' }, 0);
  metrics.cbState.set({ worker: 'http://r:1' }, 1);
  metrics.cbState.set({ worker: 'http://d:1' }, 0);
}

test('a frame lists every worker with what it is, its health, circuit, window and slots', async () => {
  const metrics = new GatewayMetrics();
  fleet(metrics);
  metrics.pdAdmissionClaimedRooms.set({ worker: 'http://d:1' }, 16);
  metrics.pdPrefillAdmissionInflight.set({ worker: 'http://p:1' }, 3);
  metrics.pdPrefillAdmissionQueued.set(5);
  metrics.engineRunning.set({ worker: 'http://d:1', model: 'm', dp_rank: '0' }, 6);
  metrics.engineRunning.set({ worker: 'http://d:1', model: 'm', dp_rank: '1' }, 4);
  metrics.engineTokenUsage.set({ worker: 'http://d:1', model: 'm', dp_rank: '0' }, 0.2);
  metrics.engineTokenUsage.set({ worker: 'http://d:1', model: 'm', dp_rank: '1' }, 0.4);

  const frame = new FrameBuilder().next(parseExposition(await metrics.render()), 1000);
  assert.deepEqual(
    frame.workers.map((w) => [w.worker, w.type, w.healthy, w.circuit]),
    [
      ['http://r:1', 'regular', false, 'open'],
      ['http://p:1', 'prefill', true, null],
      ['http://d:1', 'decode', true, 'closed'],
    ],
  );
  const [regular, prefill, decode] = frame.workers;
  assert.equal(regular?.runtime, 'vllm');
  assert.equal(regular?.connectionMode, 'grpc');
  assert.equal(regular?.window, null);
  assert.equal(regular?.prefillLimit, null);
  assert.deepEqual([prefill?.prefillInflight, prefill?.prefillLimit], [3, 4]);
  assert.deepEqual([decode?.claimedRooms, decode?.window], [16, 16]);
  assert.equal(decode?.engine?.running, 10);
  assert.ok(Math.abs((decode?.engine?.tokenUsage ?? 0) - 0.3) < 1e-9);
  assert.equal(frame.prefill.queued, 5);
  assert.equal(frame.intervalS, 0);
  assert.equal(frame.traffic.ttft, null);
});

test('counters become per-second rates and histograms percentiles over the window', async () => {
  const metrics = new GatewayMetrics();
  const builder = new FrameBuilder();
  builder.next(parseExposition(await metrics.render()), 0);

  for (let i = 0; i < 20; i++)
    metrics.routerRequests.inc({ ...ROUTER, connection_mode: 'http', streaming: 'false' });
  metrics.httpResponses.inc(
    { path: '/v1/chat/completions', status_code: '503', error_code: 'no_available_workers' },
    4,
  );
  metrics.httpResponses.inc(
    { path: '/v1/chat/completions', status_code: '404', error_code: '' },
    2,
  );
  // A probe's 503 while the gateway starts is its answer, not a failed request.
  metrics.httpResponses.inc({ path: '/readiness', status_code: '503', error_code: '' }, 9);
  metrics.httpResponses.inc(
    { path: '/v1/chat/completions', status_code: '200', error_code: '' },
    14,
  );
  for (let i = 0; i < 90; i++) metrics.routerTtft.observe(ROUTER, 0.03);
  for (let i = 0; i < 10; i++) metrics.routerTtft.observe(ROUTER, 2);
  metrics.pdAdmissionWaits.inc(6);

  const frame = builder.next(parseExposition(await metrics.render()), 2000);
  assert.equal(frame.intervalS, 2);
  assert.equal(frame.traffic.requestsPerS, 10);
  assert.deepEqual(frame.traffic.errorsPerS, { no_available_workers: 2, http_404: 1 });
  assert.equal(frame.decode.waitsPerS, 3);
  const ttft = frame.traffic.ttft;
  assert.equal(ttft?.count, 100);
  // 0.03 s lies in the (0.025, 0.05] bucket, 2 s in (1, 2.5]: p50 inside the first, p99 the second.
  assert.ok(ttft && ttft.p50 > 0.025 && ttft.p50 <= 0.05, `p50 ${ttft?.p50}`);
  assert.ok(ttft && ttft.p99 > 1 && ttft.p99 <= 2.5, `p99 ${ttft?.p99}`);

  // Nothing new for longer than the percentile window: the percentiles are gone, the rates 0.
  builder.next(parseExposition(await metrics.render()), 8000);
  const later = builder.next(parseExposition(await metrics.render()), 14_000);
  assert.equal(later.traffic.ttft, null);
  assert.equal(later.traffic.requestsPerS, 0);
  assert.deepEqual(later.traffic.errorsPerS, { no_available_workers: 0, http_404: 0 });
});

test('router rows carry the weight and the selections per second of each router', async () => {
  const metrics = new GatewayMetrics();
  const builder = new FrameBuilder();
  metrics.routerWeight.set({ model: 'm', router_type: 'http-pd' }, 0.75);
  metrics.routerWeight.set({ model: 'm', router_type: 'http' }, 0.25);
  builder.next(parseExposition(await metrics.render()), 0);
  metrics.routerSelection.inc({ model: 'm', router_type: 'http-pd' }, 3);
  metrics.routerSelection.inc({ model: 'm', router_type: 'http' }, 1);
  const frame = builder.next(parseExposition(await metrics.render()), 1000);
  assert.deepEqual(frame.routers, [
    { model: 'm', routerType: 'http', weight: 0.25, selectionsPerS: 1 },
    { model: 'm', routerType: 'http-pd', weight: 0.75, selectionsPerS: 3 },
  ]);
});

test('percentiles interpolate inside a bucket and stop at the last finite bound', () => {
  assert.equal(
    percentiles([
      [1, 0],
      [Infinity, 0],
    ]),
    null,
  );
  const p = percentiles([
    [0.1, 50],
    [0.2, 100],
    [Infinity, 100],
  ]);
  assert.ok(p);
  assert.ok(Math.abs(p.p50 - 0.1) < 1e-9);
  assert.ok(Math.abs(p.p90 - 0.18) < 1e-9);
  const tail = percentiles([
    [0.1, 1],
    [Infinity, 10],
  ]);
  assert.equal(tail?.p99, 0.1);
});
