// The routes a gateway probes to tell SGLang, vLLM and TokenSpeed apart, and the shapes of the
// discovery and load endpoints it reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { SimRuntime, SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';

const workers = new Map<SimRuntime, SimWorker>();

async function get(w: SimWorker, path: string, method: 'GET' | 'POST' = 'GET') {
  const res = await request(`${w.url}${path}`, { method });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

async function getJson(w: SimWorker, path: string): Promise<Record<string, unknown>> {
  const r = await get(w, path);
  assert.equal(r.status, 200, `${path} → ${r.status}`);
  assert.equal(r.headers['content-type'], 'application/json');
  return JSON.parse(r.text) as Record<string, unknown>;
}

function worker(runtime: SimRuntime): SimWorker {
  const w = workers.get(runtime);
  assert.ok(w);
  return w;
}

void describe('runtime fingerprints', () => {
  before(async () => {
    for (const runtime of ['sglang', 'vllm', 'tokenspeed'] as const) {
      workers.set(runtime, await startSimWorker({ runtime, maxRunningRequests: 8, model: 'm' }));
    }
  });
  after(async () => {
    await Promise.all([...workers.values()].map((w) => w.close()));
  });

  void it('vLLM answers /version and has no /server_info or /generate', async () => {
    const w = worker('vllm');
    assert.deepEqual(await getJson(w, '/version'), { version: '0.11.0-sim' });
    assert.equal((await get(w, '/server_info')).status, 404);
    assert.equal((await get(w, '/get_server_info')).status, 404);
    assert.equal((await get(w, '/generate', 'POST')).status, 404);
  });

  void it('SGLang has /server_info with max_running_requests and no /version', async () => {
    const w = worker('sglang');
    assert.equal((await get(w, '/version')).status, 404);
    for (const path of ['/server_info', '/get_server_info']) {
      const info = await getJson(w, path);
      assert.equal(info['max_running_requests'], 8);
      assert.equal(info['max_num_seqs'], undefined);
      assert.equal(info['model_path'], 'm');
      assert.equal(info['served_model_name'], 'm');
      assert.equal(info['disaggregation_mode'], 'null');
      assert.equal(info['tp_size'], 1);
      assert.equal(info['dp_size'], 1);
      assert.equal(typeof info['max_total_num_tokens'], 'number');
      assert.equal(typeof info['context_length'], 'number');
      assert.equal(typeof info['version'], 'string');
    }
  });

  void it('TokenSpeed has /server_info with max_num_seqs and owned_by tokenspeed', async () => {
    const w = worker('tokenspeed');
    assert.equal((await get(w, '/version')).status, 404);
    const info = await getJson(w, '/server_info');
    assert.equal(info['max_num_seqs'], 8);
    assert.equal(info['max_running_requests'], undefined);
    const models = await getJson(w, '/v1/models');
    assert.equal((models['data'] as { owned_by: string }[])[0]?.owned_by, 'tokenspeed');
  });

  void it('lists the model OpenAI-style with the runtime as owner', async () => {
    for (const runtime of ['sglang', 'vllm'] as const) {
      const body = await getJson(worker(runtime), '/v1/models');
      assert.equal(body['object'], 'list');
      const [entry] = body['data'] as Record<string, unknown>[];
      assert.equal(entry?.['id'], 'm');
      assert.equal(entry?.['object'], 'model');
      assert.equal(entry?.['owned_by'], runtime);
      assert.equal(typeof entry?.['created'], 'number');
    }
  });

  void it('serves model_info, health_generate and flush_cache on SGLang-style runtimes only', async () => {
    for (const runtime of ['sglang', 'tokenspeed'] as const) {
      const w = worker(runtime);
      for (const path of ['/model_info', '/get_model_info']) {
        const info = await getJson(w, path);
        assert.equal(info['is_generation'], true);
        assert.equal(info['model_type'], 'llama');
        assert.deepEqual(info['architectures'], ['LlamaForCausalLM']);
        assert.equal(info['tokenizer_path'], 'm');
      }
      assert.equal((await get(w, '/health_generate')).status, 200);
      assert.equal((await get(w, '/flush_cache', 'POST')).status, 200);
    }
    assert.equal((await get(worker('vllm'), '/model_info')).status, 404);
    assert.equal((await get(worker('vllm'), '/flush_cache', 'POST')).status, 404);
  });

  void it('answers /health 200, unknown paths 404 JSON and wrong methods 405, naming the worker', async () => {
    const w = worker('sglang');
    const health = await get(w, '/health');
    assert.equal(health.status, 200);
    assert.equal(health.headers['x-sim-worker'], w.name);
    assert.equal(w.name, `sim-${w.port}`);
    const missing = await get(w, '/nope?x=1');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /"error"/);
    const wrong = await get(w, '/v1/chat/completions', 'GET');
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers['allow'], 'POST');
    assert.equal((await get(w, '/health', 'POST')).status, 405);
    assert.equal(w.stats().requests['/nope'], 1, 'counted without the query string');
  });

  void it('reports loads in the SMG shape', async () => {
    const body = await getJson(worker('sglang'), '/v1/loads');
    assert.equal(typeof body['timestamp'], 'string');
    assert.equal(body['dp_rank_count'], 1);
    const [load] = body['loads'] as Record<string, unknown>[];
    assert.ok(load);
    assert.equal(load['dp_rank'], 0);
    assert.equal(load['max_running_requests'], 8);
    assert.equal(load['num_waiting_reqs'], 0);
    assert.equal(load['cache_hit_rate'], 0);
    assert.equal(load['num_waiting_uncached_tokens'], 0);
    for (const key of [
      'num_running_reqs',
      'num_total_reqs',
      'num_used_tokens',
      'max_total_num_tokens',
      'token_usage',
      'gen_throughput',
      'utilization',
    ]) {
      assert.equal(typeof load[key], 'number', key);
    }
  });

  void it('exposes runtime-specific Prometheus gauges', async () => {
    const sglang = await get(worker('sglang'), '/metrics');
    assert.equal(sglang.status, 200);
    assert.match(sglang.headers['content-type'] as string, /^text\/plain/);
    for (const name of ['num_running_reqs', 'num_queue_reqs', 'token_usage', 'gen_throughput']) {
      assert.match(sglang.text, new RegExp(`^# TYPE sglang:${name} gauge$`, 'm'));
      assert.match(sglang.text, new RegExp(`^sglang:${name}\\{model_name="m"\\} [0-9.e-]+$`, 'm'));
    }
    const vllm = await get(worker('vllm'), '/metrics');
    for (const name of ['num_requests_running', 'num_requests_waiting', 'kv_cache_usage_perc']) {
      assert.match(vllm.text, new RegExp(`^vllm:${name}\\{model_name="m"\\} [0-9.e-]+$`, 'm'));
    }
    assert.doesNotMatch(vllm.text, /sglang:/);
  });
});
