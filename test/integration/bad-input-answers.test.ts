// Bad input gets a clear 4xx with a stable code and never reaches a worker.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError, postJson, totalRequests } from '../helpers/http.js';

let worker: SimWorker;
let gateway: Gateway;
let inferenceBefore: number;

before(async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  gateway = await startTestGateway(['--max-payload-size', '2048', '--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
  inferenceBefore = worker.stats().requests['/v1/chat/completions'] ?? 0;
});

after(async () => {
  await gateway.close();
  await worker.close();
});

test('malformed JSON is 400 invalid_json', async () => {
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/chat/completions`, '{"model": '),
    400,
    'invalid_json',
  );
});

test('a JSON body that is not an object is 400 invalid_body', async () => {
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/chat/completions`, '[1,2]'),
    400,
    'invalid_body',
  );
});

test('a non-string model is 400 invalid_body', async () => {
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/completions`, { model: 7, prompt: 'x' }),
    400,
    'invalid_body',
  );
});

test('a body over --max-payload-size is 413', async () => {
  const big = { model: 'sim-model', messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/chat/completions`, big),
    413,
    'payload_too_large',
  );
});

test('a body over the limit without content-length (chunked) is 413 too', async () => {
  const chunks = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
      controller.close();
    },
  });
  const res = await fetch(`${gateway.url}/v1/completions`, {
    method: 'POST',
    body: chunks,
    duplex: 'half',
    headers: { 'content-type': 'application/json' },
  });
  await assertGatewayError(res, 413, 'payload_too_large');
});

test('a wrong method on a known route is 405 with Allow', async () => {
  const res = await fetch(`${gateway.url}/v1/chat/completions`);
  assert.equal(res.headers.get('allow'), 'POST');
  await assertGatewayError(res, 405, 'method_not_allowed');
});

test('an unknown route is 404 not_found', async () => {
  await assertGatewayError(await fetch(`${gateway.url}/v2/nothing`), 404, 'not_found');
});

test('a malformed percent-encoded path is a 404 and the gateway keeps serving', async () => {
  await assertGatewayError(await fetch(`${gateway.url}/workers/%E0%A4%A`), 404, 'not_found');
  assert.equal((await fetch(`${gateway.url}/liveness`)).status, 200);
});

test('an unknown model is 404 model_not_found', async () => {
  const res = await postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'gpt-nope',
    messages: [{ role: 'user', content: 'x' }],
  });
  const error = await assertGatewayError(res, 404, 'model_not_found');
  assert.match(error.message, /gpt-nope/);
});

test('none of the bad requests reached the worker', () => {
  assert.equal(worker.stats().requests['/v1/chat/completions'] ?? 0, inferenceBefore);
  assert.equal(worker.stats().requests['/v1/completions'] ?? 0, 0);
});

test('a gateway with no workers answers 503 no_available_workers', async () => {
  const empty = await startTestGateway();
  try {
    await assertGatewayError(
      await postJson(`${empty.url}/v1/completions`, { model: 'm', prompt: 'x' }),
      503,
      'no_available_workers',
    );
  } finally {
    await empty.close();
  }
});

test('with --api-key, inference and admin routes need the key; probes do not', async () => {
  const secured = await startTestGateway(['--api-key', 's3cret', '--worker-urls', worker.url]);
  try {
    await waitForReadyWorkers(secured, 1);
    const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };
    await assertGatewayError(
      await postJson(`${secured.url}/v1/completions`, body),
      401,
      'unauthorized',
    );
    await assertGatewayError(
      await postJson(`${secured.url}/v1/completions`, body, { authorization: 'Bearer wrong' }),
      401,
      'unauthorized',
    );
    await assertGatewayError(await fetch(`${secured.url}/workers`), 401, 'unauthorized');
    const ok = await postJson(`${secured.url}/v1/completions`, body, {
      authorization: 'Bearer s3cret',
    });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
    assert.equal(
      (await fetch(`${secured.url}/workers`, { headers: { authorization: 'Bearer s3cret' } }))
        .status,
      200,
    );
    assert.equal((await fetch(`${secured.url}/liveness`)).status, 200);
    assert.equal((await fetch(`${secured.url}/readiness`)).status, 200);
  } finally {
    await secured.close();
  }
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
  assert.ok(totalRequests(worker.stats()) > 0);
});
