// HEAD answers on every GET route as SMG's (axum `get()` also serves HEAD): the GET route's
// status and headers, no body. Load-balancer and k8s HEAD checks must not get 405.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  gateway = await startTestGateway(['--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bodyBytes: number;
}

/** node:http, not fetch, so the bytes on the wire after a HEAD response head are counted. */
function send(method: string, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.url}${path}`, { method }, (res) => {
      let bodyBytes = 0;
      res.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bodyBytes }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

for (const path of ['/liveness', '/health', '/readiness', '/v1/models', '/workers']) {
  test(`HEAD ${path} answers as GET does, with an empty body`, async () => {
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    assert.equal(get.status, 200);
    assert.ok(get.bodyBytes > 0);
    assert.equal(head.status, get.status);
    assert.equal(head.bodyBytes, 0);
    assert.equal(head.headers['content-type'], get.headers['content-type']);
    assert.equal(head.headers['content-length'], get.headers['content-length']);
  });
}

test('HEAD /workers/{id} answers as GET does, with an empty body', async () => {
  const [w] = gateway.internals.registry.all();
  assert.ok(w);
  const get = await send('GET', `/workers/${w.id}`);
  const head = await send('HEAD', `/workers/${w.id}`);
  assert.equal(get.status, 200);
  assert.equal(head.status, 200);
  assert.equal(head.bodyBytes, 0);
  assert.equal(head.headers['content-length'], get.headers['content-length']);
  await assertAllReleased(gateway);
});

test('HEAD on a POST-only route is still 405, and GET routes list HEAD as allowed', async () => {
  const post = await send('HEAD', '/v1/chat/completions');
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'POST');
  const put = await send('PUT', '/workers');
  assert.equal(put.status, 405);
  assert.deepEqual(String(put.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST']);
  await assertAllReleased(gateway);
});
