// /readiness waits for the tokenizers of healthy gRPC workers, as SMG: 503 "tokenizer not yet
// registered" while one is loading or failed to load, 200 once it is registered; with
// --disable-tokenizer-autoload nothing is loaded and readiness needs only healthy workers.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitFor } from '../helpers/gateway.js';
import {
  fakeEngine,
  FakeConnector,
  FakeLoaders,
  FakeTokenizerRegistry,
} from '../helpers/fake-engine.js';
import { postJson } from '../helpers/http.js';

const gateways: Gateway[] = [];

after(async () => {
  await Promise.all(gateways.map((g) => g.close()));
});

async function start(flags: string[] = []) {
  const connector = new FakeConnector();
  const tokenizers = new FakeTokenizerRegistry();
  const loaders = new FakeLoaders();
  const gateway = await startTestGateway(['--health-check-interval-secs', '3600', ...flags], {
    grpc: connector,
    tokenizers: { tokenizers, loaders },
  });
  gateways.push(gateway);
  return { gateway, connector, tokenizers, loaders };
}

async function register(gateway: Gateway, url: string): Promise<string> {
  const res = await postJson(`${gateway.url}/workers`, { url });
  assert.equal(res.status, 202);
  const { worker_id: id } = (await res.json()) as { worker_id: string };
  await waitFor(() => gateway.internals.registry.get(id)?.status === 'ready', `${url} ready`);
  return id;
}

async function readiness(gateway: Gateway): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${gateway.url}/readiness`);
  return { status: res.status, body: await res.json() };
}

const HISTORY = { history_store: { backend: 'memory', reachable: true } };
const NOT_YET = { status: 'not ready', reason: 'tokenizer not yet registered', ...HISTORY };

test('503 while the tokenizer loads, 200 once it is registered', async () => {
  const { gateway, connector, tokenizers, loaders } = await start();
  let release = (): void => undefined;
  loaders.gate = new Promise<void>((r) => (release = r));
  connector.add(
    'grpc://127.0.0.1:50201',
    fakeEngine('vllm', {
      modelInfo: { served_model_name: 'qwen' },
      tokenizer: { data: Buffer.from('zip'), sha256: 'ok' },
    }),
  );
  await register(gateway, 'grpc://127.0.0.1:50201');
  await waitFor(() => loaders.calls.length === 1, 'the bundle load to start');
  assert.deepEqual(await readiness(gateway), { status: 503, body: NOT_YET });
  release();
  await waitFor(() => tokenizers.has('qwen'), 'the tokenizer to register');
  assert.deepEqual(await readiness(gateway), {
    status: 200,
    body: { status: 'ready', healthy_workers: 1, total_workers: 1, ...HISTORY },
  });

  // A second model whose bundle fails its checks: logged, readiness back to 503, nothing crashes.
  connector.add(
    'grpc://127.0.0.1:50202',
    fakeEngine('sglang', {
      modelInfo: { served_model_name: 'broken' },
      tokenizer: { data: Buffer.from('zip'), sha256: 'bad' },
    }),
  );
  const broken = await register(gateway, 'grpc://127.0.0.1:50202');
  await waitFor(() => loaders.calls.length === 2, 'the second bundle load');
  assert.deepEqual(await readiness(gateway), { status: 503, body: NOT_YET });
  assert.equal(tokenizers.has('broken'), false);

  // Removing the worker whose model has no tokenizer makes the gateway ready again.
  const del = await fetch(`${gateway.url}/workers/${broken}`, { method: 'DELETE' });
  assert.equal(del.status, 202);
  await waitFor(async () => (await readiness(gateway)).status === 200, 'ready again');
  await assertAllReleased(gateway);
});

test('--disable-tokenizer-autoload: ready as soon as the worker is healthy, nothing loaded', async () => {
  const { gateway, connector, loaders } = await start(['--disable-tokenizer-autoload']);
  connector.add('grpc://127.0.0.1:50203', fakeEngine('tokenspeed'));
  await register(gateway, 'grpc://127.0.0.1:50203');
  assert.deepEqual(await readiness(gateway), {
    status: 200,
    body: { status: 'ready', healthy_workers: 1, total_workers: 1, ...HISTORY },
  });
  assert.equal(loaders.calls.length, 0);
});
