import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { getGlobalDispatcher } from 'undici';
import {
  discoverMetadata,
  flattenLabels,
  probeHealth,
} from '../../../src/workers/discovery/metadata.js';

void describe('flattenLabels', () => {
  void it('keeps the curated server-info fields as strings', () => {
    const labels = flattenLabels({
      max_running_requests: 64,
      max_num_seqs: 256,
      disaggregation_mode: 'prefill',
      dp_size: 2,
      tp_size: 4,
      model_path: '/models/llama',
      context_length: 8192,
      max_total_num_tokens: 500000,
      version: '0.4.1',
    });
    assert.deepEqual(labels, {
      max_running_requests: '64',
      max_num_seqs: '256',
      disaggregation_mode: 'prefill',
      dp_size: '2',
      tp_size: '4',
      model_path: '/models/llama',
      context_length: '8192',
      max_total_num_tokens: '500000',
      version: '0.4.1',
    });
  });

  void it('skips null, undefined, 0 and empty strings', () => {
    assert.deepEqual(
      flattenLabels({
        dp_size: 0,
        max_running_requests: null,
        model_path: '',
        tp_size: undefined,
        pp_size: 1,
      }),
      { pp_size: '1' },
    );
  });

  void it('skips objects and arrays even under a curated key', () => {
    assert.deepEqual(
      flattenLabels({ version: { major: 1 }, served_model_name: ['a', 'b'], dp_size: 2 }),
      { dp_size: '2' },
    );
  });

  void it('skips keys outside the curated list', () => {
    assert.deepEqual(
      flattenLabels({ random_seed: 42, port: 30000, mem_fraction_static: 0.8, tp_size: 1 }),
      { tp_size: '1' },
    );
  });

  void it('writes booleans as "true" and "false", false included', () => {
    assert.deepEqual(flattenLabels({ is_embedding: false, is_generation: true }), {
      is_embedding: 'false',
      is_generation: 'true',
    });
  });

  void it('returns an empty object for an empty info', () => {
    assert.deepEqual(flattenLabels({}), {});
  });
});

type Routes = Record<string, { status: number; body: unknown }>;

interface FakeWorker {
  base: string;
  /** Paths requested, in order. */
  hits: string[];
  /** Authorization header of each request. */
  auth: (string | undefined)[];
}

void describe('discoverMetadata against real HTTP servers', () => {
  const servers: Server[] = [];

  after(async () => {
    await Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.closeAllConnections();
            s.close(() => resolve());
          }),
      ),
    );
  });

  async function fakeWorker(routes: Routes): Promise<FakeWorker> {
    const hits: string[] = [];
    const auth: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      const path = req.url ?? '';
      hits.push(path);
      auth.push(req.headers.authorization);
      const route = routes[path];
      const status = route?.status ?? 404;
      const body =
        route === undefined
          ? 'Not Found'
          : typeof route.body === 'string'
            ? route.body
            : JSON.stringify(route.body);
      res.writeHead(status, {
        'content-type': typeof route?.body === 'string' ? 'text/plain' : 'application/json',
      });
      res.end(body);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, auth };
  }

  const opts = { timeoutMs: 5000, dispatcher: getGlobalDispatcher() };
  const models = (ownedBy: string, ...ids: string[]) => ({
    status: 200,
    body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: ownedBy })) },
  });

  void it('(a) owned_by vllm → vllm, without asking for server info', async () => {
    const w = await fakeWorker({
      '/v1/models': models('vllm', 'llama'),
      '/server_info': { status: 200, body: { max_running_requests: 8 } },
      '/get_server_info': { status: 200, body: { max_running_requests: 8 } },
    });
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.equal(meta.runtime, 'vllm');
    assert.deepEqual(meta.models, ['llama']);
    assert.deepEqual(meta.labels, {});
    assert.deepEqual(w.hits, ['/v1/models']);
  });

  void it('(b) owned_by something else, /version answers → vllm', async () => {
    const w = await fakeWorker({
      '/v1/models': models('meta', 'llama'),
      '/version': { status: 200, body: { version: '0.6.0' } },
    });
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.equal(meta.runtime, 'vllm');
    assert.deepEqual(meta.models, ['llama']);
    assert.ok(w.hits.includes('/version'));
    assert.ok(!w.hits.includes('/server_info') && !w.hits.includes('/get_server_info'));
  });

  void it('(c) no /version, /server_info 404, /get_server_info 200 → sglang with its labels', async () => {
    const w = await fakeWorker({
      '/v1/models': models('someone', 'qwen'),
      '/get_server_info': {
        status: 200,
        body: { max_running_requests: 64, dp_size: 0, random_seed: 1 },
      },
    });
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.equal(meta.runtime, 'sglang');
    assert.deepEqual(meta.models, ['qwen']);
    assert.equal(meta.labels.max_running_requests, '64');
    assert.equal(meta.labels.dp_size, undefined);
    assert.equal(meta.labels.random_seed, undefined);
    const serverInfo = w.hits.indexOf('/server_info');
    assert.ok(
      serverInfo !== -1 && serverInfo < w.hits.indexOf('/get_server_info'),
      `order: ${w.hits.join(', ')}`,
    );
  });

  void it('merges model-info labels, server info winning a clash', async () => {
    const w = await fakeWorker({
      '/v1/models': models('sglang', 'm'),
      '/server_info': { status: 200, body: { max_running_requests: 32, model_path: '/srv/m' } },
      '/model_info': { status: 200, body: { model_path: '/hf/m', is_generation: true } },
    });
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.equal(meta.runtime, 'sglang');
    assert.deepEqual(meta.labels, {
      max_running_requests: '32',
      model_path: '/srv/m',
      is_generation: 'true',
    });
  });

  void it('(d) nothing answers → generic with no models', async () => {
    const w = await fakeWorker({});
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.equal(meta.runtime, 'generic');
    assert.deepEqual(meta.models, []);
    assert.deepEqual(meta.labels, {});
  });

  void it('treats a non-JSON 200 as no answer', async () => {
    const w = await fakeWorker({
      '/v1/models': { status: 200, body: 'ok' },
      '/version': { status: 200, body: 'v1' },
    });
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.equal(meta.runtime, 'generic');
  });

  void it('reports generic when the worker is unreachable', async () => {
    const w = await fakeWorker({});
    const closed = servers.pop();
    assert.ok(closed);
    closed.closeAllConnections();
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const meta = await discoverMetadata(w.base, undefined, opts);
    assert.deepEqual(meta, { runtime: 'generic', models: [], labels: {} });
  });

  void it('(e) keeps a given runtime over what the worker says', async () => {
    const w = await fakeWorker({
      '/v1/models': models('vllm', 'm'),
      '/version': { status: 200, body: { version: '0.6.0' } },
      '/server_info': { status: 200, body: { max_running_requests: 16 } },
    });
    const meta = await discoverMetadata(w.base, 'sglang', opts);
    assert.equal(meta.runtime, 'sglang');
    assert.equal(meta.labels.max_running_requests, '16');
    assert.ok(!w.hits.includes('/version'));

    const given = await discoverMetadata(w.base, 'tokenspeed', opts);
    assert.equal(given.runtime, 'tokenspeed');
  });

  void it('treats a given unspecified runtime as not given', async () => {
    const w = await fakeWorker({ '/v1/models': models('vllm', 'm') });
    assert.equal((await discoverMetadata(w.base, 'unspecified', opts)).runtime, 'vllm');
  });

  void it('sends the api key as a bearer token on every probe', async () => {
    const w = await fakeWorker({
      '/v1/models': models('sglang', 'm'),
      '/server_info': { status: 200, body: {} },
    });
    await discoverMetadata(w.base, undefined, { ...opts, apiKey: 'sk-test' });
    assert.ok(w.auth.length > 0);
    assert.ok(
      w.auth.every((a) => a === 'Bearer sk-test'),
      JSON.stringify(w.auth),
    );
  });

  void it('probeHealth is true on 2xx only', async () => {
    const w = await fakeWorker({
      '/health': { status: 200, body: '' },
      '/busy': { status: 503, body: 'busy' },
    });
    assert.equal(await probeHealth(`${w.base}/health`, opts), true);
    assert.equal(await probeHealth(`${w.base}/busy`, opts), false);
    assert.equal(await probeHealth(`${w.base}/missing`, opts), false);
  });
});
