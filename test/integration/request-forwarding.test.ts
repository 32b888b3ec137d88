// What reaches the worker: SMG's forwarded headers only, a request id (generated when absent),
// the worker api key as bearer (else the client's own credential), the client's exact body bytes,
// and the canonical model for an aliased request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

let worker: SimWorker;
let keyed: SimWorker;
let gateway: Gateway;

before(async () => {
  worker = await startSimWorker({ model: 'llama-canonical' });
  keyed = await startSimWorker({ model: 'keyed-model' });
  gateway = await startTestGateway([
    '--model-alias',
    'llama=llama-canonical',
    '--worker-urls',
    worker.url,
  ]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
  await keyed.close();
});

test('only SMG-forwarded headers reach the worker, with x-correlation-id as the request id (SMG default list)', async () => {
  const res = await postJson(
    `${gateway.url}/v1/completions`,
    { model: 'llama-canonical', prompt: 'x', max_tokens: 1 },
    {
      authorization: 'Bearer client-token',
      traceparent: '00-abc-def-01',
      tracestate: 'k=v',
      'x-correlation-id': 'corr-1',
      'x-request-id-extra': 'extra',
      'x-smg-routing-key': 'session-9',
      cookie: 'secret=1',
      'x-custom': 'no',
    },
  );
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const seen = worker.stats().lastRequest?.headers ?? {};
  assert.equal(seen.authorization, 'Bearer client-token');
  assert.equal(seen.traceparent, '00-abc-def-01');
  assert.equal(seen.tracestate, 'k=v');
  assert.equal(seen['x-correlation-id'], 'corr-1');
  assert.equal(seen['x-request-id-extra'], 'extra');
  assert.equal(seen['x-smg-routing-key'], 'session-9');
  assert.equal(seen.cookie, undefined);
  assert.equal(seen['x-custom'], undefined);
  assert.equal(res.headers.get('x-request-id'), 'corr-1');
  assert.equal(seen['x-request-id'], 'corr-1', 'the worker and the client see the same id');
});

test("the client's request id is kept", async () => {
  const res = await postJson(
    `${gateway.url}/v1/completions`,
    { model: 'llama-canonical', prompt: 'x', max_tokens: 1 },
    { 'x-request-id': 'mine-1' },
  );
  await res.arrayBuffer();
  assert.equal(res.headers.get('x-request-id'), 'mine-1');
  assert.equal(worker.stats().lastRequest?.headers['x-request-id'], 'mine-1');
});

test('the body reaches the worker exactly as sent', async () => {
  const raw =
    '{"model":"llama-canonical","prompt":"keep   my  spacing","max_tokens":1,"extra_field":{"nested":[1,2.50]}}';
  const res = await postJson(`${gateway.url}/v1/completions`, raw);
  await res.arrayBuffer();
  assert.deepEqual(worker.stats().lastRequest?.body, JSON.parse(raw));
});

test('an aliased model is routed and rewritten to the canonical id', async () => {
  const res = await postJson(`${gateway.url}/v1/completions`, {
    model: 'llama',
    prompt: 'x',
    max_tokens: 1,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal((worker.stats().lastRequest?.body as { model: string }).model, 'llama-canonical');
});

test("a worker's api_key is sent as bearer, whatever Authorization the client sent", async () => {
  const added = await postJson(`${gateway.url}/workers`, { url: keyed.url, api_key: 'worker-key' });
  assert.equal(added.status, 202);
  await waitFor(
    () => gateway.internals.registry.all().some((w) => w.url === keyed.url && w.isHealthy),
    'keyed worker ready',
  );
  const body = { model: 'keyed-model', prompt: 'x', max_tokens: 1 };
  await (await postJson(`${gateway.url}/v1/completions`, body)).arrayBuffer();
  assert.equal(keyed.stats().lastRequest?.headers.authorization, 'Bearer worker-key');
  await (
    await postJson(`${gateway.url}/v1/completions`, body, { authorization: 'Bearer user' })
  ).arrayBuffer();
  assert.equal(keyed.stats().lastRequest?.headers.authorization, 'Bearer worker-key');
  // The key is write-only: never echoed by the worker API.
  const list = await (await fetch(`${gateway.url}/workers`)).text();
  assert.ok(!list.includes('worker-key'));
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
