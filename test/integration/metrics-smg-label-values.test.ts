// After regular and PD traffic, every label value on /metrics is one SMG itself writes, so
// dashboards and alerts built for SMG select Switchyard's series unchanged.
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
import { postJson } from '../helpers/http.js';
import { startPdSetup, type PdSetup } from '../helpers/pd-fleet.js';

/**
 * SMG's label values, from smg-project/smg model_gateway/src/observability/metrics.rs
 * (`metrics_labels`: ROUTER_*, BACKEND_*, CONNECTION_*, ENDPOINT_*, WORKER_*, ERROR_*) and
 * model_gateway/src/routers/grpc/utils/metrics.rs (`route_to_endpoint` adds `other`).
 */
const SMG_LABEL_VALUES: Record<string, readonly string[]> = {
  router_type: ['openai', 'http', 'grpc'],
  backend_type: ['regular', 'pd', 'external', 'harmony'],
  connection_mode: ['http', 'grpc', 'zmq'],
  endpoint: [
    'chat',
    'generate',
    'responses',
    'completions',
    'rerank',
    'embeddings',
    'classify',
    'messages',
    'realtime',
    'realtime_sessions',
    'realtime_client_secrets',
    'realtime_transcription',
    'audio_transcriptions',
    'other',
  ],
  worker_type: ['regular', 'prefill', 'decode', 'encode', 'http', 'grpc'],
  error_type: ['no_workers', 'timeout', 'backend_error', 'validation_error', 'internal_error'],
  streaming: ['true', 'false'],
};

/** The families whose labels above SMG defines (Switchyard-only families are not checked). */
const SMG_FAMILIES = [
  'smg_router_requests_total',
  'smg_router_request_duration_seconds',
  'smg_router_request_errors_total',
  'smg_router_upstream_responses_total',
  'smg_router_ttft_seconds',
  'smg_worker_retries_total',
  'smg_worker_retries_exhausted_total',
  'smg_worker_selection_total',
  'smg_worker_pool_size',
];

/** SMG's `route_to_endpoint` for every inference route Switchyard serves. */
const ENDPOINT_BY_ROUTE: Record<string, string> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'completions',
  '/generate': 'generate',
  '/v1/rerank': 'rerank',
  '/v1/responses': 'responses',
  '/v1/embeddings': 'other',
  '/rerank': 'other',
};

const RETRY_FLAGS = ['--retry-initial-backoff-ms', '1', '--retry-max-backoff-ms', '1'];

let worker: SimWorker;
let regular: Gateway;
let pd: PdSetup;

/** `name{a="x",b="y"} v` sample lines of the families, as label maps. */
function samples(
  text: string,
  families: readonly string[],
): { name: string; labels: Record<string, string> }[] {
  const out: { name: string; labels: Record<string, string> }[] = [];
  for (const line of text.split('\n')) {
    const brace = line.indexOf('{');
    if (brace < 0 || line.startsWith('#')) continue;
    const name = line.slice(0, brace);
    if (!families.some((f) => name === f || name.startsWith(`${f}_`))) continue;
    const labels: Record<string, string> = {};
    for (const m of line.slice(brace + 1, line.lastIndexOf('}')).matchAll(/(\w+)="([^"]*)"/g))
      labels[m[1] ?? ''] = m[2] ?? '';
    out.push({ name, labels });
  }
  return out;
}

function assertSmgValues(text: string): void {
  const found = samples(text, SMG_FAMILIES);
  assert.ok(found.length > 0, 'no samples of the checked families');
  for (const { name, labels } of found) {
    for (const [label, value] of Object.entries(labels)) {
      const allowed = SMG_LABEL_VALUES[label];
      if (allowed)
        assert.ok(allowed.includes(value), `${name}: ${label}="${value}" is not an SMG value`);
    }
  }
}

before(async () => {
  worker = await startSimWorker({ model: 'sim-model', ttftMs: 2, itlMs: 1 });
  regular = await startTestGateway([
    ...RETRY_FLAGS,
    '--engine-metrics',
    '--load-monitor-interval',
    '3600',
    '--worker-urls',
    worker.url,
  ]);
  await waitForReadyWorkers(regular, 1);
  pd = await startPdSetup({ flags: RETRY_FLAGS });
  const body = {
    model: 'sim-model',
    messages: [{ role: 'user', content: 'hi' }],
    prompt: 'hi',
    text: 'hi',
    input: 'hi',
    query: 'q',
    documents: ['d'],
    max_tokens: 2,
  };
  // `text` is /generate's prompt; on /v1/responses it is the output format, which must be an object.
  for (const route of Object.keys(ENDPOINT_BY_ROUTE))
    await (
      await postJson(
        `${regular.url}${route}`,
        route === '/v1/responses' ? { ...body, text: undefined } : body,
      )
    ).arrayBuffer();
  await (
    await postJson(`${regular.url}/v1/chat/completions`, { ...body, stream: true })
  ).arrayBuffer();
  await (
    await postJson(`${regular.url}/v1/chat/completions`, { ...body, model: 'no-such-model' })
  ).arrayBuffer();
  worker.setFaults({ errorRate: 1, errorStatus: 503, maxFires: 1 });
  await (await postJson(`${regular.url}/v1/completions`, body)).arrayBuffer();
  await fetch(`${regular.url}/workers/no-such-id`);
  await regular.internals.loadMonitor?.pollAll();

  for (const route of ['/v1/chat/completions', '/v1/completions', '/generate'])
    await (await postJson(`${pd.gateway.url}${route}`, body)).arrayBuffer();
  pd.decodes[0]?.setFaults({ errorRate: 1, errorStatus: 503, maxFires: 1 });
  await (await postJson(`${pd.gateway.url}/v1/completions`, body)).arrayBuffer();
  pd.decodes[0]?.setFaults({ errorRate: 1, errorStatus: 400, maxFires: 1 });
  await (await postJson(`${pd.gateway.url}/v1/chat/completions`, body)).arrayBuffer();
});

after(async () => {
  await regular.close();
  await worker.close();
  await pd.close();
});

test('regular traffic: router_type http, backend_type regular, SMG endpoint names', async () => {
  const text = await scrapeMetrics(regular);
  assertSmgValues(text);
  for (const [route, endpoint] of Object.entries(ENDPOINT_BY_ROUTE)) {
    const labels = {
      router_type: 'http',
      backend_type: 'regular',
      connection_mode: 'http',
      endpoint,
      streaming: 'false',
    };
    assert.ok(
      (metricValue(text, 'smg_router_requests_total', labels) ?? 0) >= 1,
      `${route} -> ${endpoint}`,
    );
  }
  assert.equal(
    metricValue(text, 'smg_router_requests_total', { endpoint: 'chat', streaming: 'true' }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_router_ttft_seconds_count', {
      router_type: 'http',
      backend_type: 'regular',
      endpoint: 'chat',
    }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_router_request_errors_total', {
      router_type: 'http',
      backend_type: 'regular',
      model: 'other',
      endpoint: 'chat',
      error_type: 'no_workers',
    }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_router_upstream_responses_total', {
      router_type: 'http',
      status_code: '503',
    }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_worker_retries_total', {
      worker_type: 'regular',
      endpoint: 'completions',
    }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_http_requests_total', { method: 'GET', path: '/workers/{worker_id}' }),
    1,
  );
  await assertAllReleased(regular);
});

test('engine gauges carry worker, model and dp_rank', async () => {
  const text = await scrapeMetrics(regular);
  for (const family of [
    'smg_engine_running_requests',
    'smg_engine_waiting_requests',
    'smg_engine_token_usage',
    'smg_engine_gen_throughput',
    'smg_engine_cache_hit_rate',
  ]) {
    assert.notEqual(
      metricValue(text, family, { worker: worker.url, model: 'sim-model', dp_rank: '0' }),
      undefined,
      family,
    );
  }
});

test('PD traffic: backend_type pd, and a retry counted once per leg', async () => {
  const text = await scrapeMetrics(pd.gateway);
  assertSmgValues(text);
  for (const endpoint of ['chat', 'completions', 'generate']) {
    assert.ok(
      (metricValue(text, 'smg_router_requests_total', {
        router_type: 'http',
        backend_type: 'pd',
        endpoint,
      }) ?? 0) >= 1,
      endpoint,
    );
  }
  for (const leg of ['prefill', 'decode']) {
    assert.equal(
      metricValue(text, 'smg_worker_retries_total', { worker_type: leg, endpoint: 'completions' }),
      1,
      leg,
    );
  }
  assert.equal(
    metricValue(text, 'smg_router_request_errors_total', {
      router_type: 'http',
      backend_type: 'pd',
      endpoint: 'chat',
      error_type: 'validation_error',
    }),
    1,
  );
  await assertAllReleased(pd.gateway);
});
