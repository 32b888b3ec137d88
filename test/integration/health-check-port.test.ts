// --health-check-port, as SMG (health.rs): a second listener on --host serving /liveness,
// /readiness and /health only, with the main port's answers; it keeps answering through the
// shutdown drain (readiness 503 draining) and closes when the gateway stops. The gateway refuses
// its address as a worker.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
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
let gateway: Gateway;

before(async () => {
  worker = await startSimWorker({ ttftMs: 1, itlMs: 40 });
  gateway = await startTestGateway(['--health-check-port', '0', '--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

function probeUrl(): string {
  assert.ok(gateway.healthCheckUrl, 'the probe listener is up');
  return gateway.healthCheckUrl;
}

async function get(
  url: string,
  method = 'GET',
): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(url, { method });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

test('without the flag there is no probe listener', async () => {
  const plain = await startTestGateway([]);
  try {
    assert.equal(plain.healthCheckUrl, undefined);
  } finally {
    await plain.close();
  }
});

test('/liveness, /health and /readiness answer on the probe port as on the main port', async () => {
  const probe = probeUrl();
  assert.notEqual(probe, gateway.url);
  for (const path of ['/liveness', '/health', '/readiness']) {
    const there = await get(`${probe}${path}`);
    const main = await get(`${gateway.url}${path}`);
    assert.equal(there.status, 200, path);
    assert.equal(there.body, main.body, path);
    assert.equal(there.headers.get('content-type'), main.headers.get('content-type'), path);
  }
  assert.equal((await get(`${probe}/liveness`)).body, 'OK');
  assert.deepEqual(JSON.parse((await get(`${probe}/readiness`)).body), {
    status: 'ready',
    healthy_workers: 1,
    total_workers: 1,
    history_store: { backend: 'memory', reachable: true },
  });
  assert.equal(
    (await get(`${probe}/readiness`, 'HEAD')).status,
    200,
    'HEAD is answered like GET, as axum',
  );
});

test('nothing else is served on the probe port: inference and admin routes are 404', async () => {
  const probe = probeUrl();
  const chat = await postJson(`${probe}/v1/chat/completions`, {
    model: 'sim-model',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(chat.status, 404);
  await chat.arrayBuffer();
  for (const path of ['/workers', '/v1/models', '/health_generate', '/metrics']) {
    assert.equal((await get(`${probe}${path}`)).status, 404, path);
  }
  assert.equal(
    worker.stats().requests['/v1/chat/completions'] ?? 0,
    0,
    'nothing reached the worker',
  );
});

test('the probe address is refused as a worker', async () => {
  const res = await postJson(`${gateway.url}/workers`, { url: probeUrl() });
  const body = (await res.json()) as { error: string };
  assert.equal(res.status, 400, JSON.stringify(body));
  assert.match(body.error, /own health-check address/);
});

test('during the drain readiness is 503 draining on the probe port and liveness 200; then the port closes', async () => {
  await assertAllReleased(gateway);
  const probe = probeUrl();
  const ac = new AbortController();
  const held = await request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({ model: 'sim-model', prompt: 'hold', max_tokens: 200, stream: true }),
  });
  assert.equal(held.statusCode, 200);
  held.body.on('error', () => undefined);
  const stopped = gateway.shutdown(20_000);
  await waitFor(() => gateway.internals.draining, 'the drain to start');
  const ready = await get(`${probe}/readiness`);
  assert.equal(ready.status, 503);
  assert.deepEqual(JSON.parse(ready.body), {
    status: 'not ready',
    reason: 'draining',
    history_store: { backend: 'memory', reachable: true },
  });
  assert.equal((await get(`${probe}/liveness`)).status, 200);
  ac.abort();
  await stopped;
  await assert.rejects(
    fetch(`${probe}/liveness`),
    'the probe port is closed once the gateway stopped',
  );
  for (const w of gateway.internals.registry.all())
    assert.equal(w.load, 0, `worker ${w.url} still holds load`);
});
