// Registering gRPC workers: runtime detection (the spec's runtime as the hint), labels from
// GetModelInfo and GetServerInfo with SMG's renames and drops, the model id, a GetServerInfo
// failure that is only a warning, `/workers` showing connection_mode grpc, the pool-size label,
// and one engine client per worker closed once when it leaves. The engine clients are fakes
// (test/helpers/fake-engine.ts) until the real ones are merged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
} from '../helpers/gateway.js';
import { capturingLogger, fakeEngine, FakeConnector } from '../helpers/fake-engine.js';
import { postJson } from '../helpers/http.js';

const connector = new FakeConnector();
const log = capturingLogger();
let gateway: Gateway;

before(async () => {
  gateway = await startTestGateway(['--health-check-interval-secs', '3600'], {
    grpc: connector,
    logger: log.logger,
  });
});

after(async () => {
  await gateway.close();
});

interface WorkerInfo {
  id: string;
  url: string;
  status: string;
  connection_mode: string;
  runtime_type: string;
  model_id: string;
  models: { id: string }[];
  labels: Record<string, string>;
}

async function register(body: Record<string, unknown>): Promise<WorkerInfo> {
  const res = await postJson(`${gateway.url}/workers`, body);
  assert.equal(res.status, 202, await res.clone().text());
  const { worker_id: id } = (await res.json()) as { worker_id: string };
  await waitFor(() => gateway.internals.registry.get(id)?.status === 'ready', `${id} ready`);
  const info = await fetch(`${gateway.url}/workers/${id}`);
  return (await info.json()) as WorkerInfo;
}

test('an SGLang engine: detected, labelled from model info and curated server_args', async () => {
  connector.add(
    'grpc://127.0.0.1:50051',
    fakeEngine('sglang', {
      modelInfo: {
        model_path: '/models/qwen',
        tokenizer_path: '/models/qwen-tok',
        served_model_name: 'qwen',
        is_generation: true,
        supports_vision: false,
        max_context_length: 4096,
        vocab_size: 0,
        eos_token_ids: [151645, 151643],
        architectures: [],
        weight_version: '',
      },
      serverInfo: {
        server_args: {
          tp_size: 2,
          dp_size: 1,
          max_running_requests: 64,
          context_length: 4096,
          disaggregation_mode: 'null',
          random_seed: 7,
        },
        scheduler_info: { shm_namespace_id: 'ignored-for-sglang' },
        sglang_version: '0.5.2',
        active_requests: 3,
        is_paused: false,
        uptime_seconds: 12.5,
        server_type: 'grpc',
        max_total_num_tokens: 100000,
      },
    }),
  );
  const info = await register({ url: 'grpc://127.0.0.1:50051' });
  assert.equal(info.url, 'grpc://127.0.0.1:50051');
  assert.equal(info.connection_mode, 'grpc');
  assert.equal(info.runtime_type, 'sglang');
  assert.equal(info.model_id, 'qwen');
  assert.deepEqual(info.models, [{ id: 'qwen' }]);
  assert.deepEqual(info.labels, {
    model_path: '/models/qwen',
    tokenizer_path: '/models/qwen-tok',
    served_model_name: 'qwen',
    is_generation: 'true',
    supports_vision: 'false',
    max_context_length: '4096',
    eos_token_ids: '[151645,151643]',
    tp_size: '2',
    dp_size: '1',
    max_running_requests: '64',
    context_length: '4096',
    disaggregation_mode: 'null',
    version: '0.5.2',
  });
});

test('a vLLM engine: every server-info field, renamed, transient state dropped', async () => {
  connector.add(
    'grpc://127.0.0.1:50052',
    fakeEngine('vllm', {
      modelInfo: { model_path: '/models/llama', is_generation: true, max_context_length: 8192 },
      serverInfo: {
        active_requests: 2,
        is_paused: false,
        last_receive_timestamp: 1.5,
        uptime_seconds: 30,
        server_type: 'vllm-grpc',
        kv_connector: 'NixlConnector',
        kv_role: 'kv_both',
        kv_engine_id: 'engine-1',
        data_parallel_size: 2,
        tensor_parallel_size: 4,
        shm_namespace_id: '',
      },
    }),
  );
  const info = await register({ url: 'grpc://127.0.0.1:50052' });
  assert.equal(info.runtime_type, 'vllm');
  // No served_model_name: the model path is the model id.
  assert.equal(info.model_id, '/models/llama');
  assert.deepEqual(info.labels, {
    model_path: '/models/llama',
    is_generation: 'true',
    max_context_length: '8192',
    kv_connector: 'NixlConnector',
    kv_role: 'kv_both',
    kv_engine_id: 'engine-1',
    dp_size: '2',
    tp_size: '4',
  });
});

test('a TokenSpeed engine named sglang in the spec: the hint is tried, the answer wins; spec models and labels win', async () => {
  connector.add(
    'grpcs://127.0.0.1:50053',
    fakeEngine('tokenspeed', {
      modelInfo: { served_model_name: 'ts-model' },
      serverInfo: {
        server_args: { model: '/models/ts', tokenizer: '/models/ts-tok', max_running_requests: 32 },
        scheduler_info: { shm_namespace_id: 'ns-1' },
        tokenspeed_version: '1.2',
      },
    }),
  );
  const hintsBefore = connector.detectHints.length;
  const info = await register({
    url: 'grpcs://127.0.0.1:50053',
    runtime: 'sglang',
    models: ['alias-model'],
    labels: { zone: 'a', max_running_requests: '8' },
  });
  assert.deepEqual(connector.detectHints.slice(hintsBefore), ['sglang']);
  assert.equal(info.connection_mode, 'grpc');
  assert.equal(info.runtime_type, 'tokenspeed');
  assert.equal(info.model_id, 'alias-model');
  assert.deepEqual(info.labels, {
    served_model_name: 'ts-model',
    model_path: '/models/ts',
    tokenizer_path: '/models/ts-tok',
    max_running_requests: '8',
    version: '1.2',
    shm_namespace_id: 'ns-1',
    zone: 'a',
  });
});

test('a GetServerInfo failure is only a warning', async () => {
  connector.add(
    'grpc://127.0.0.1:50054',
    fakeEngine('sglang', {
      modelInfo: { served_model_name: 'm4' },
      serverInfo: new Error('server info exploded'),
    }),
  );
  const info = await register({ url: 'grpc://127.0.0.1:50054' });
  assert.deepEqual(info.labels, { served_model_name: 'm4' });
  assert.ok(
    log.records.some(
      (r) =>
        r.worker === 'grpc://127.0.0.1:50054' &&
        typeof r.err === 'string' &&
        r.err.includes('server info exploded'),
    ),
  );
});

test('an engine that does not answer yet is probed until it does', async () => {
  const engine = connector.add(
    'grpc://127.0.0.1:50055',
    fakeEngine('vllm', { answering: false, modelInfo: { served_model_name: 'late' } }),
  );
  const res = await postJson(`${gateway.url}/workers`, { url: 'grpc://127.0.0.1:50055' });
  assert.equal(res.status, 202);
  const { worker_id: id } = (await res.json()) as { worker_id: string };
  await waitFor(() => engine.calls.detect >= 2, 'a second detection probe', 5000);
  assert.equal(gateway.internals.registry.get(id), undefined);
  engine.answering = true;
  await waitFor(() => gateway.internals.registry.get(id)?.status === 'ready', 'registered', 5000);
});

test('a mismatched connection_mode is a 400 naming the field', async () => {
  const res = await postJson(`${gateway.url}/workers`, {
    url: 'grpc://127.0.0.1:50059',
    connection_mode: 'http',
  });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { error: string; code: string };
  assert.equal(body.code, 'BAD_REQUEST');
  assert.match(body.error, /'connection_mode' is 'http' but the URL grpc:\/\/127\.0\.0\.1:50059/);
});

test('gRPC workers have no HTTP pool; the pool-size gauge says connection_mode grpc', async () => {
  const text = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(text, 'smg_worker_pool_size', {
      worker_type: 'regular',
      connection_mode: 'grpc',
      model: 'qwen',
    }),
    1,
  );
  for (const w of gateway.internals.registry.all()) {
    assert.equal(gateway.internals.pools.get(w.origin), undefined, w.url);
  }
});

test('removing a worker closes its engine client exactly once', async () => {
  const url = 'grpc://127.0.0.1:50051';
  const worker = gateway.internals.registry.getByUrl(url);
  assert.ok(worker);
  const client = gateway.internals.engineClients.get(worker);
  assert.equal(client.target, '127.0.0.1:50051');
  const res = await fetch(`${gateway.url}/workers/${worker.id}`, { method: 'DELETE' });
  assert.equal(res.status, 202);
  await waitFor(() => gateway.internals.registry.get(worker.id) === undefined, 'removed');
  assert.deepEqual(connector.closes(url), [1]);
  assert.equal(gateway.internals.engineClients.has(url), false);
  await assertAllReleased(gateway);
});
