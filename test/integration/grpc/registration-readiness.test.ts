// Registering simulated gRPC engines and the readiness gate, end to end (acceptance A1, A2, A3,
// A14): `POST /workers` with only a grpc:// URL detects each runtime by HealthCheck probing and
// labels the worker from GetModelInfo/GetServerInfo; /readiness is 503 "tokenizer not yet
// registered" while the tokenizer is fetched with GetTokenizer (or ready at once with
// --disable-tokenizer-autoload); a bundle whose sha256 is wrong fails registration naming the
// worker and keeps readiness 503; a request for a model without a tokenizer is a 503 with
// Retry-After that is not retried. The engines serve the simulator's tiny tokenizer.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { ManualClock } from '@switchyard/kit';
import { startSimGrpcWorker, type SimWorker, type SimWorkerOptions } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { loadTokenizerBundle } from '../../../src/tokenizer/bundle.js';
import { loadTokenizerDir } from '../../../src/tokenizer/load-dir.js';
import { TokenizerRegistry } from '../../../src/tokenizer/registry.js';
import type { TokenizerLoadOptions } from '../../../src/workers/tokenizer-source.js';
import { capturingLogger } from '../../helpers/fake-engine.js';
import { assertAllReleased, startTestGateway, waitFor } from '../../helpers/gateway.js';
import { generateRequests, waitForReadiness } from '../../helpers/grpc.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';

/** A path that exists only on the engine's host: the gateway must fetch the bundle. */
const REMOTE_TOKENIZER_PATH = '/nonexistent/engine-host/tokenizer';

const gateways: Gateway[] = [];
const engines: SimWorker[] = [];

after(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all(engines.map((e) => e.close()));
});

async function engine(opts: SimWorkerOptions): Promise<SimWorker> {
  const e = await startSimGrpcWorker({ ttftMs: 1, itlMs: 1, answerText: 'Hello world', ...opts });
  engines.push(e);
  return e;
}

async function gatewayWith(
  flags: string[] = [],
  opts: Parameters<typeof startTestGateway>[1] = {},
): Promise<Gateway> {
  const g = await startTestGateway(flags, opts);
  gateways.push(g);
  return g;
}

interface WorkerInfo {
  id: string;
  url: string;
  status: string;
  connection_mode: string;
  runtime_type: string;
  model_id: string;
  labels: Record<string, string>;
}

async function register(gateway: Gateway, url: string): Promise<string> {
  const res = await postJson(`${gateway.url}/workers`, { url });
  assert.equal(res.status, 202, await res.clone().text());
  const { worker_id: id } = (await res.json()) as { worker_id: string };
  await waitFor(() => gateway.internals.registry.get(id)?.status === 'ready', `${url} ready`);
  return id;
}

async function listed(gateway: Gateway, url: string): Promise<WorkerInfo> {
  const res = await fetch(`${gateway.url}/workers`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { workers: WorkerInfo[] };
  const w = body.workers.find((x) => x.url === url);
  assert.ok(w, `${url} in GET /workers: ${JSON.stringify(body)}`);
  return w;
}

async function readiness(gateway: Gateway): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${gateway.url}/readiness`);
  return { status: res.status, body: await res.json() };
}

/** The loaders' options without keys set to undefined, as the gateway's own tokenizer module passes them. */
function defined(o: TokenizerLoadOptions): Parameters<typeof loadTokenizerDir>[1] {
  return {
    modelId: o.modelId,
    l0: o.l0,
    ...(o.source === undefined ? {} : { source: o.source }),
    ...(o.chatTemplatePath === undefined ? {} : { chatTemplatePath: o.chatTemplatePath }),
  };
}

const HISTORY = { history_store: { backend: 'memory', reachable: true } };
const NOT_YET = { status: 'not ready', reason: 'tokenizer not yet registered', ...HISTORY };

void describe('registering gRPC engines with no runtime given (A1)', () => {
  for (const runtime of ['sglang', 'vllm', 'tokenspeed'] as const) {
    void it(`detects ${runtime} and labels it from the engine's model and server info`, async () => {
      const e = await engine({
        runtime,
        model: `m-${runtime}`,
        ...(runtime === 'vllm' ? { kvConnector: 'NixlConnector' as const } : {}),
      });
      const gateway = await gatewayWith();
      await register(gateway, e.url);
      const w = await listed(gateway, e.url);
      assert.equal(w.runtime_type, runtime);
      assert.equal(w.connection_mode, 'grpc');
      assert.equal(w.model_id, `m-${runtime}`);
      assert.equal(w.labels.served_model_name, `m-${runtime}`);
      assert.ok(w.labels.tokenizer_path, 'a tokenizer_path label');
      assert.equal(w.labels.max_context_length, '32768');
      if (runtime === 'vllm') assert.equal(w.labels.kv_connector, 'NixlConnector');
      else assert.equal(w.labels.kv_connector, undefined);
      // The tokenizer path is local here: it is loaded and the model is served.
      await waitForReadiness(gateway);
      const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const reply = await client.chat.completions.create({
        model: `m-${runtime}`,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.equal(reply.choices[0]?.message.content, 'Hello world');
      await assertAllReleased(gateway);
    });
  }
});

void describe('readiness waits for the tokenizer (A2, A3)', () => {
  void it('is 503 "tokenizer not yet registered" while GetTokenizer is slow, then 200 and serving from the bundle', async () => {
    const e = await engine({
      runtime: 'sglang',
      model: 'remote',
      tokenizerPathLabel: REMOTE_TOKENIZER_PATH,
      faults: { tokenizerDelayMs: 400 },
    });
    const gateway = await gatewayWith();
    await register(gateway, e.url);
    // The worker is healthy and registered, but its tokenizer is still on its way.
    const before = await readiness(gateway);
    assert.equal(before.status, 503);
    assert.deepEqual(before.body, NOT_YET);
    assert.equal(gateway.internals.tokenizers.has('remote'), false);
    await waitForReadiness(gateway);
    const ready = await readiness(gateway);
    assert.deepEqual(ready.body, {
      status: 'ready',
      healthy_workers: 1,
      total_workers: 1,
      ...HISTORY,
    });
    assert.match(gateway.internals.tokenizers.get('remote')?.source ?? '', /grpc:\/\//);
    // Requests are served with the fetched tokenizer: Hello world round-trips through its ids.
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'remote',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(reply.choices[0]?.message.content, 'Hello world');
    assert.equal(reply.choices[0]?.finish_reason, 'stop');
    const sent = generateRequests(e).at(-1)?.tokenized as { original_text: string };
    assert.match(sent.original_text, /<\|im_start\|>user\nHi<\|im_end\|>/);
    await assertAllReleased(gateway);
  });

  void it('with --disable-tokenizer-autoload is ready as soon as the worker is healthy', async () => {
    const e = await engine({
      runtime: 'vllm',
      model: 'noload',
      tokenizerPathLabel: REMOTE_TOKENIZER_PATH,
      faults: { tokenizerDelayMs: 60_000 },
    });
    const gateway = await gatewayWith(['--disable-tokenizer-autoload']);
    await register(gateway, e.url);
    const r = await readiness(gateway);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(gateway.internals.tokenizers.has('noload'), false);
    assert.equal(e.stats().requests['/vllm.grpc.engine.VllmEngine/GetTokenizer'] ?? 0, 0);
  });

  void it('fails registration on a bundle with a wrong sha256, naming the worker; readiness stays 503 and a request is 503 tokenizer_not_found (A3, A14)', async () => {
    const e = await engine({
      runtime: 'tokenspeed',
      model: 'badsha',
      tokenizerPathLabel: REMOTE_TOKENIZER_PATH,
      faults: { tokenizerBadSha: true },
    });
    // The registry's retries (3 attempts, 2 s apart) run on a manual clock, so the final failure
    // comes at once; the rest of the gateway runs on the real clock.
    const clock = new ManualClock();
    const log = capturingLogger();
    const tokenizers = new TokenizerRegistry({ clock, logger: log.logger });
    const gateway = await gatewayWith([], {
      logger: log.logger,
      tokenizers: {
        tokenizers,
        loaders: {
          loadDir: (dir, o) => loadTokenizerDir(dir, defined(o)),
          loadBundle: (bundle, o) =>
            loadTokenizerBundle(bundle, { ...defined(o), origin: o.origin }),
        },
      },
    });
    await register(gateway, e.url);
    let failed = false;
    while (!failed) {
      clock.advance(2_000);
      await new Promise((r) => setTimeout(r, 20));
      failed = tokenizers.failure('badsha') !== undefined;
    }
    const failure = tokenizers.failure('badsha') ?? '';
    assert.ok(failure.includes(e.url), `the failure names the worker: ${failure}`);
    assert.match(failure, /sha|fingerprint/i);
    const logged = log.records.find(
      (r) => r.msg === 'tokenizer registration failed' && r.level === 50 && r.worker === e.url,
    );
    assert.ok(logged, `an error log naming the worker: ${JSON.stringify(log.records)}`);
    assert.equal(
      e.stats().requests['/tokenspeed.grpc.scheduler.TokenSpeedScheduler/GetTokenizer'],
      3,
      'three attempts',
    );
    const r = await readiness(gateway);
    assert.equal(r.status, 503);
    assert.deepEqual(r.body, NOT_YET);
    // The gateway is otherwise fine: the worker is still ready, and a request is answered.
    assert.equal(gateway.internals.registry.all()[0]?.status, 'ready');
    const res = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: 'badsha',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(res.headers.get('retry-after'), '1');
    const err = await assertGatewayError(res, 503, 'tokenizer_not_found');
    assert.match(err.message, /badsha/);
    assert.equal(generateRequests(e).length, 0, 'the engine never saw the request');
    const metrics = await (await fetch(gateway.metricsUrl)).text();
    assert.ok(!/^smg_worker_retries_total\{/m.test(metrics), 'not retried');
    await assertAllReleased(gateway);
  });
});
