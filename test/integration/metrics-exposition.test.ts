// The separate Prometheus listener exposes SMG's metric families with their labels, the
// exposition passes `promtool check metrics`, and the in-flight gauge follows the load lease.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

let fleet: SimWorker[];
let gateway: Gateway;
let text: string;

before(async () => {
  fleet = await startSimFleet(2, { model: 'sim-model', ttftMs: 2, itlMs: 1 });
  gateway = await startTestGateway([
    '--policy',
    'round_robin',
    '--worker-urls',
    ...fleet.map((w) => w.url),
  ]);
  await waitForReadyWorkers(gateway, 2);
  for (const stream of [false, true, true]) {
    const res = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: 'sim-model',
      messages: [{ role: 'user', content: 'm' }],
      max_tokens: 3,
      stream,
    });
    await res.arrayBuffer();
  }
  await (
    await postJson(`${gateway.url}/v1/chat/completions`, {
      model: 'nope',
      messages: [{ role: 'user', content: 'm' }],
    })
  ).arrayBuffer();
  text = await scrapeMetrics(gateway);
});

after(async () => {
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

test('every required family is exported', () => {
  for (const family of [
    'smg_http_requests_total',
    'smg_http_request_duration_seconds',
    'smg_http_responses_total',
    'smg_router_requests_total',
    'smg_router_request_duration_seconds',
    'smg_router_ttft_seconds',
    'smg_worker_requests_active',
    'smg_worker_health',
    'smg_worker_pool_size',
    'smg_worker_selection_total',
    'smg_worker_errors_total',
  ]) {
    assert.match(text, new RegExp(`^# TYPE ${family} `, 'm'), `missing ${family}`);
  }
});

test('counters carry SMG labels and count what happened', () => {
  assert.equal(
    metricValue(text, 'smg_http_requests_total', { method: 'POST', path: '/v1/chat/completions' }),
    4,
  );
  assert.equal(
    metricValue(text, 'smg_http_responses_total', {
      path: '/v1/chat/completions',
      status_code: '404',
      error_code: 'model_not_found',
    }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_http_responses_total', {
      path: '/v1/chat/completions',
      status_code: '200',
      error_code: '',
    }),
    3,
  );
  assert.equal(
    metricValue(text, 'smg_router_requests_total', {
      router_type: 'http',
      backend_type: 'regular',
      model: 'sim-model',
      endpoint: 'chat',
      streaming: 'true',
    }),
    2,
  );
  assert.equal(
    metricValue(text, 'smg_worker_selection_total', {
      worker_type: 'regular',
      connection_mode: 'http',
      model: 'sim-model',
      policy: 'round_robin',
    }),
    3,
  );
  assert.equal(
    metricValue(text, 'smg_router_ttft_seconds_count', {
      router_type: 'http',
      backend_type: 'regular',
      model: 'sim-model',
      endpoint: 'chat',
    }),
    2,
  );
  assert.equal(
    metricValue(text, 'smg_worker_pool_size', {
      worker_type: 'regular',
      connection_mode: 'http',
      model: 'sim-model',
    }),
    2,
  );
  for (const w of fleet) {
    assert.equal(metricValue(text, 'smg_worker_health', { worker: w.url }), 1);
    assert.equal(metricValue(text, 'smg_worker_requests_active', { worker: w.url }), 0);
  }
});

test('duration histograms use SMG buckets', () => {
  assert.match(
    text,
    /smg_http_request_duration_seconds_bucket\{le="7200",method="POST",path="\/v1\/chat\/completions"\}/,
  );
  assert.match(text, /smg_router_ttft_seconds_bucket\{le="0.001",/);
});

test('the in-flight gauge shows a running request and returns to zero after it', async () => {
  fleet.forEach((w) => w.setFaults({ hang: true }));
  const ac = new AbortController();
  const pending = request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-model', prompt: 'hold', max_tokens: 2 }),
    signal: ac.signal,
  });
  let during = 0;
  await waitFor(async () => {
    const t = await scrapeMetrics(gateway);
    during = fleet.reduce(
      (sum, w) => sum + (metricValue(t, 'smg_worker_requests_active', { worker: w.url }) ?? 0),
      0,
    );
    return during > 0;
  }, 'the hanging request to show in smg_worker_requests_active');
  assert.equal(during, 1);
  ac.abort();
  await assert.rejects(pending);
  fleet.forEach((w) => w.setFaults({}));
  await assertAllReleased(gateway);
});

/** promtool from $PROMTOOL (set by `npm test`), the unpacked Debian package, or PATH. */
function findPromtool(): string {
  const local = '.tmp/tools/root/usr/bin/promtool';
  return process.env.PROMTOOL ?? (existsSync(local) ? local : 'promtool');
}

test('promtool check metrics accepts the exposition', () => {
  const result = spawnSync(findPromtool(), ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.ok(
    !result.error,
    `promtool not runnable (${String(result.error)}); run scripts/ensure-promtool.sh`,
  );
  assert.equal(result.status, 0, `promtool said: ${result.stdout}${result.stderr}`);
});
