// Every call the gateway makes to a worker for a client request carries the worker's key, the
// loop marker and the request's id, and the client gets back the id the gateway decided, never
// the worker's own. A `Via` the client nominated in its `Connection` header was for the
// gateway's hop only, so it is not passed on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import {
  rawGet,
  rawPost,
  startRecordingWorker,
  type RecordingWorker,
} from '../helpers/recording-worker.js';

let worker: RecordingWorker;
let gateway: Gateway;

before(async () => {
  worker = await startRecordingWorker();
  gateway = await startTestGateway(['--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

test("a proxied GET echoes the client's request id even when the worker sends its own", async () => {
  worker.infoHeaders = { 'x-request-id': 'worker-own-id' };
  const res = await rawGet(`${gateway.url}/get_server_info`, { 'x-request-id': 'client-id' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['x-request-id'], 'client-id');
});

test('the worker receives the request id and the loop marker on a proxied GET', async () => {
  const res = await rawGet(`${gateway.url}/get_server_info`, { 'x-request-id': 'proxied-id' });
  assert.equal(res.status, 200, res.text);
  const seen = worker.to('/get_server_info').at(-1)?.headers ?? {};
  assert.equal(seen['x-request-id'], 'proxied-id');
  assert.ok(gateway.internals.hop.seenIn(seen.via), `no loop marker in ${String(seen.via)}`);
});

test('the worker receives the generated request id on a proxied GET without one', async () => {
  const res = await rawGet(`${gateway.url}/get_server_info`, {});
  const seen = worker.to('/get_server_info').at(-1)?.headers ?? {};
  assert.ok(res.headers['x-request-id']);
  assert.equal(seen['x-request-id'], res.headers['x-request-id']);
});

test('the worker receives the request id on an admin fan-out (/get_loads)', async () => {
  const res = await rawGet(`${gateway.url}/get_loads`, { 'x-request-id': 'fan-out-id' });
  assert.equal(res.status, 200, res.text);
  assert.equal(worker.to('/v1/loads').at(-1)?.headers['x-request-id'], 'fan-out-id');
});

test("a client's Via nominated in its Connection header is not forwarded", async () => {
  const hopOnly = { connection: 'keep-alive, via', via: '1.1 hop-only-proxy' };
  const post = await rawPost(
    `${gateway.url}/v1/completions`,
    { model: 'recorded-model', prompt: 'x', max_tokens: 1 },
    hopOnly,
  );
  assert.equal(post.status, 200, post.text);
  const get = await rawGet(`${gateway.url}/get_server_info`, hopOnly);
  assert.equal(get.status, 200, get.text);
  for (const path of ['/v1/completions', '/get_server_info']) {
    const via = String(worker.to(path).at(-1)?.headers.via);
    assert.equal(via, `1.1 ${gateway.internals.hop.pseudonym}`, `${path} got Via: ${via}`);
  }
});

test('a Via the client did not nominate is kept before the gateway marker', async () => {
  const res = await rawGet(`${gateway.url}/get_server_info`, { via: '1.1 front-proxy' });
  assert.equal(res.status, 200, res.text);
  assert.equal(
    worker.to('/get_server_info').at(-1)?.headers.via,
    `1.1 front-proxy, 1.1 ${gateway.internals.hop.pseudonym}`,
  );
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
