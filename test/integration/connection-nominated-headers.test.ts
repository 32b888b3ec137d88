// RFC 9110 §7.6.1: a header named in a `Connection` header belongs to that one hop, so the
// gateway neither forwards a client's nominated header to the worker nor relays a worker's
// nominated header to the client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import {
  rawPost,
  startRecordingWorker,
  type RecordingWorker,
} from '../helpers/recording-worker.js';

let worker: RecordingWorker;
let gateway: Gateway;
const body = { model: 'recorded-model', prompt: 'x', max_tokens: 1 };

before(async () => {
  worker = await startRecordingWorker();
  gateway = await startTestGateway(['--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

test('a client header named in its Connection header is not forwarded to the worker', async () => {
  const res = await rawPost(`${gateway.url}/v1/completions`, body, {
    connection: 'keep-alive, X-Request-Id, x-correlation-id',
    'x-request-id': 'hop-only-id',
    'x-correlation-id': 'hop-only-corr',
    traceparent: '00-abc-def-01',
  });
  assert.equal(res.status, 200, res.text);
  const seen = worker.to('/v1/completions').at(-1)?.headers ?? {};
  assert.notEqual(seen['x-request-id'], 'hop-only-id');
  assert.equal(seen['x-correlation-id'], undefined);
  assert.equal(seen.traceparent, '00-abc-def-01', 'headers not nominated still cross');
  assert.equal(
    res.headers['x-request-id'],
    seen['x-request-id'],
    'the gateway minted its own id instead',
  );
});

test('a worker response header named in its Connection header is not relayed to the client', async () => {
  worker.completionHeaders = {
    connection: 'keep-alive, x-engine-secret',
    'x-engine-secret': 'internal',
    'x-engine-public': 'ok',
  };
  const res = await rawPost(`${gateway.url}/v1/completions`, body, {});
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['x-engine-secret'], undefined);
  assert.equal(res.headers['x-engine-public'], 'ok');
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
