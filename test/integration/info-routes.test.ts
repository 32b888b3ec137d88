// The non-inference routes: probes, readiness, model list, worker-info proxies and admin fan-outs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError } from '../helpers/http.js';

let fleet: SimWorker[];
let gateway: Gateway;

before(async () => {
  fleet = await startSimFleet(2, { model: 'sim-model', runtime: 'sglang', maxRunningRequests: 32 });
  gateway = await startTestGateway(['--worker-urls', ...fleet.map((w) => w.url)]);
  await waitForReadyWorkers(gateway, 2);
});

after(async () => {
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

test('/liveness and /health answer OK as plain text', async () => {
  for (const path of ['/liveness', '/health']) {
    const res = await fetch(gateway.url + path);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'OK');
  }
});

test('/readiness reports ready with worker counts; 503 when no worker is healthy', async () => {
  const res = await fetch(`${gateway.url}/readiness`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    status: 'ready',
    healthy_workers: 2,
    total_workers: 2,
    history_store: { backend: 'memory', reachable: true },
  });
  const empty = await startTestGateway();
  try {
    const r = await fetch(`${empty.url}/readiness`);
    assert.equal(r.status, 503);
    assert.deepEqual(await r.json(), {
      status: 'not ready',
      reason: 'insufficient healthy workers',
      history_store: { backend: 'memory', reachable: true },
    });
  } finally {
    await empty.close();
  }
});

test('/v1/models lists the models workers announced; 503 text when none', async () => {
  const res = await fetch(`${gateway.url}/v1/models`);
  const body = (await res.json()) as {
    object: string;
    data: { id: string; object: string; owned_by: string }[];
  };
  assert.equal(body.object, 'list');
  assert.deepEqual(
    body.data.map((m) => [m.id, m.object, m.owned_by]),
    [['sim-model', 'model', 'sglang']],
  );
  const empty = await startTestGateway();
  try {
    const r = await fetch(`${empty.url}/v1/models`);
    assert.equal(r.status, 503);
    assert.equal(await r.text(), 'No models available');
  } finally {
    await empty.close();
  }
});

test('/get_server_info, /get_model_info and /health_generate are proxied to a worker', async () => {
  const info = await fetch(`${gateway.url}/get_server_info`);
  assert.equal(info.status, 200);
  assert.equal(((await info.json()) as { max_running_requests: number }).max_running_requests, 32);
  assert.ok(fleet.some((w) => w.url === info.headers.get('x-smg-routed-worker-id')));
  const model = await fetch(`${gateway.url}/get_model_info`);
  assert.equal(model.status, 200);
  assert.equal(((await model.json()) as { is_generation: boolean }).is_generation, true);
  assert.equal((await fetch(`${gateway.url}/health_generate`)).status, 200);
  const empty = await startTestGateway();
  try {
    await assertGatewayError(await fetch(`${empty.url}/get_server_info`), 503, 'no_workers');
  } finally {
    await empty.close();
  }
});

test('/get_loads polls every worker', async () => {
  const res = await fetch(`${gateway.url}/get_loads`);
  const body = (await res.json()) as {
    loads: { worker: string; details: { loads: unknown[] } }[];
    total_workers: number;
    successful: number;
    failed: number;
  };
  assert.equal(body.total_workers, 2);
  assert.equal(body.successful, 2);
  assert.equal(body.failed, 0);
  assert.deepEqual(body.loads.map((l) => l.worker).sort(), fleet.map((w) => w.url).sort());
  assert.ok(Array.isArray(body.loads[0]?.details.loads));
});

test('/flush_cache fans out to every worker', async () => {
  const res = await fetch(`${gateway.url}/flush_cache`, { method: 'POST' });
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    successful: string[];
    failed: unknown[];
    total_workers: number;
    http_workers: number;
  };
  assert.deepEqual(body.successful.sort(), fleet.map((w) => w.url).sort());
  assert.deepEqual(body.failed, []);
  assert.equal(body.total_workers, 2);
  for (const w of fleet) assert.equal(w.stats().requests['/flush_cache'], 1);
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
