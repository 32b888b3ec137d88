// Which key reaches a worker: its own api_key when it has one, else --api-key; a gateway key
// the client presented is never passed on, and without any key on either side the client's
// own credential is.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { startRecordingWorker, type RecordingWorker } from '../helpers/recording-worker.js';

const completion = (model: string): object => ({ model, prompt: 'x', max_tokens: 1 });

describe('with --api-key', () => {
  let keyed: RecordingWorker;
  let plain: RecordingWorker;
  let gateway: Gateway;
  const GATEWAY_KEY = { authorization: 'Bearer gateway-key' };

  before(async () => {
    keyed = await startRecordingWorker('keyed-model');
    plain = await startRecordingWorker('plain-model');
    gateway = await startTestGateway(['--api-key', 'gateway-key', '--worker-urls', plain.url]);
    await waitForReadyWorkers(gateway, 1);
    const added = await postJson(
      `${gateway.url}/workers`,
      { url: keyed.url, api_key: 'worker-own-key' },
      GATEWAY_KEY,
    );
    assert.equal(added.status, 202);
    await waitFor(
      () => gateway.internals.registry.all().some((w) => w.url === keyed.url && w.isHealthy),
      'keyed worker ready',
    );
  });

  after(async () => {
    await gateway.close();
    await keyed.close();
    await plain.close();
  });

  test('a worker with its own api_key never sees the gateway key', async () => {
    const res = await postJson(
      `${gateway.url}/v1/completions`,
      completion('keyed-model'),
      GATEWAY_KEY,
    );
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(keyed.to('/v1/completions').length, 1);
    assert.ok(keyed.requests.length > 1, 'probes and discovery were recorded too');
    for (const r of keyed.requests)
      assert.equal(r.headers.authorization, 'Bearer worker-own-key', `${r.method} ${r.path}`);
  });

  test('a worker without a key of its own receives --api-key', async () => {
    const res = await postJson(
      `${gateway.url}/v1/completions`,
      completion('plain-model'),
      GATEWAY_KEY,
    );
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(plain.to('/v1/completions').at(-1)?.headers.authorization, 'Bearer gateway-key');
  });

  test('no load lease is left behind', async () => {
    await assertAllReleased(gateway);
  });
});

describe('with control-plane keys only', () => {
  let worker: RecordingWorker;
  let gateway: Gateway;

  before(async () => {
    worker = await startRecordingWorker();
    gateway = await startTestGateway([
      '--control-plane-api-keys',
      'ops:Ops:admin:cp-secret',
      '--worker-urls',
      worker.url,
    ]);
    await waitForReadyWorkers(gateway, 1);
  });

  after(async () => {
    await gateway.close();
    await worker.close();
  });

  test('a control-plane key sent on an inference request is not passed to the worker', async () => {
    const res = await postJson(`${gateway.url}/v1/completions`, completion('recorded-model'), {
      authorization: 'Bearer cp-secret',
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(worker.to('/v1/completions').at(-1)?.headers.authorization, undefined);
  });

  test("the client's own credential reaches a worker that has no key", async () => {
    const res = await postJson(`${gateway.url}/v1/completions`, completion('recorded-model'), {
      authorization: 'Bearer client-own',
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(worker.to('/v1/completions').at(-1)?.headers.authorization, 'Bearer client-own');
  });

  test('no load lease is left behind', async () => {
    await assertAllReleased(gateway);
  });
});
