// The /workers API with SMG's replies: add -> ready -> routed to -> delete -> no longer routed,
// plus the conflict, validation and not-found answers, PATCH and PUT.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitFor } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

let a: SimWorker;
let b: SimWorker;
let gateway: Gateway;

before(async () => {
  a = await startSimWorker({ model: 'model-a', runtime: 'sglang', maxRunningRequests: 64 });
  b = await startSimWorker({ model: 'model-a', runtime: 'vllm' });
  gateway = await startTestGateway(['--policy', 'round_robin']);
});

after(async () => {
  await gateway.close();
  await a.close();
  await b.close();
});

interface WorkerInfo {
  id: string;
  url: string;
  status: string;
  is_healthy: boolean;
  model_id: string;
  worker_type: string;
  runtime_type: string;
  labels: Record<string, string>;
  priority: number;
  cost: number;
  load: number;
  job_status: { status: string; job_type: string } | null;
}

async function getInfo(id: string): Promise<WorkerInfo> {
  const res = await fetch(`${gateway.url}/workers/${id}`);
  assert.equal(res.status, 200);
  return (await res.json()) as WorkerInfo;
}

async function addWorker(body: unknown): Promise<string> {
  const res = await postJson(`${gateway.url}/workers`, body);
  assert.equal(res.status, 202);
  const reply = (await res.json()) as {
    status: string;
    worker_id: string;
    url: string;
    location: string;
    message: string;
  };
  assert.equal(reply.status, 'accepted');
  assert.equal(res.headers.get('location'), `/workers/${reply.worker_id}`);
  assert.equal(reply.location, `/workers/${reply.worker_id}`);
  assert.match(reply.message, /queued/);
  return reply.worker_id;
}

async function routedTo(): Promise<string | null> {
  const res = await postJson(`${gateway.url}/v1/completions`, {
    model: 'model-a',
    prompt: 'x',
    max_tokens: 1,
  });
  await res.arrayBuffer();
  return res.status === 200 ? res.headers.get('x-smg-routed-worker-id') : `status ${res.status}`;
}

let idA = '';

test('POST /workers registers in the background; the worker becomes ready and is routed to', async () => {
  idA = await addWorker({ url: a.url, labels: { zone: 'z1' } });
  await waitFor(() => gateway.internals.registry.get(idA)?.status === 'ready', 'worker a ready');
  const info = await getInfo(idA);
  assert.equal(info.url, a.url);
  assert.equal(info.status, 'ready');
  assert.equal(info.is_healthy, true);
  assert.equal(info.model_id, 'model-a');
  assert.equal(info.worker_type, 'regular');
  assert.equal(info.runtime_type, 'sglang');
  assert.equal(info.labels.max_running_requests, '64', 'discovered from /server_info');
  assert.equal(info.labels.zone, 'z1', 'given labels kept');
  assert.equal(info.priority, 50);
  assert.equal(info.cost, 1);
  assert.equal(info.job_status?.status, 'completed');
  assert.equal(await routedTo(), a.url);
});

test('a second worker of another runtime is detected and shares the traffic', async () => {
  const idB = await addWorker({ url: `${b.url}/` });
  await waitFor(() => gateway.internals.registry.get(idB)?.status === 'ready', 'worker b ready');
  assert.equal((await getInfo(idB)).runtime_type, 'vllm');
  const seen = new Set([await routedTo(), await routedTo()]);
  assert.deepEqual([...seen].sort(), [a.url, b.url].sort());
  const list = (await (await fetch(`${gateway.url}/workers`)).json()) as {
    workers: WorkerInfo[];
    total: number;
    stats: Record<string, number>;
  };
  assert.equal(list.total, 2);
  assert.deepEqual(list.stats, { prefill_count: 0, decode_count: 0, regular_count: 2 });
  const filtered = (await (await fetch(`${gateway.url}/workers?model=other`)).json()) as {
    total: number;
  };
  assert.equal(filtered.total, 0);
  // DELETE b: draining at once (settle 0 in tests), then gone; traffic goes to a only.
  const del = await fetch(`${gateway.url}/workers/${idB}`, { method: 'DELETE' });
  assert.equal(del.status, 202);
  assert.match(((await del.json()) as { message: string }).message, /removal queued/);
  await waitFor(() => gateway.internals.registry.get(idB) === undefined, 'worker b removed');
  for (let i = 0; i < 4; i++) assert.equal(await routedTo(), a.url);
  assert.equal((await fetch(`${gateway.url}/workers/${idB}`)).status, 404);
});

test('adding the same URL again is 409 WORKER_ALREADY_EXISTS', async () => {
  const res = await postJson(`${gateway.url}/workers`, { url: a.url });
  assert.equal(res.status, 409);
  const body = (await res.json()) as { error: string; code: string };
  assert.equal(body.code, 'WORKER_ALREADY_EXISTS');
  assert.match(body.error, new RegExp(idA));
});

test('bad specs are 400 BAD_REQUEST; unknown ids 404; non-UUID ids 400', async () => {
  for (const bad of [
    '{not json',
    { url: 'ftp://x' },
    { url: 'nope' },
    { url: a.url, worker_type: 'mystery' },
    {},
  ]) {
    const res = await postJson(`${gateway.url}/workers`, bad);
    assert.equal(res.status, 400, JSON.stringify(bad));
    assert.equal(((await res.json()) as { code: string }).code, 'BAD_REQUEST');
  }
  const missing = await fetch(`${gateway.url}/workers/00000000-0000-4000-8000-000000000000`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { code: string }).code, 'WORKER_NOT_FOUND');
  const notUuid = await fetch(`${gateway.url}/workers/abc`);
  assert.equal(notUuid.status, 400);
});

test('PATCH changes priority, cost and labels', async () => {
  const res = await fetch(`${gateway.url}/workers/${idA}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ priority: 90, cost: 2.5, labels: { tier: 'gold' } }),
  });
  assert.equal(res.status, 202);
  const info = await getInfo(idA);
  assert.equal(info.priority, 90);
  assert.equal(info.cost, 2.5);
  assert.equal(info.labels.tier, 'gold');
  assert.equal(info.labels.zone, 'z1');
});

test('PUT re-registers with a full spec for the same URL, keeping the id; a URL mismatch is 400', async () => {
  const mismatch = await fetch(`${gateway.url}/workers/${idA}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: b.url }),
  });
  assert.equal(mismatch.status, 400);
  const previous = gateway.internals.registry.get(idA);
  const res = await fetch(`${gateway.url}/workers/${idA}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: a.url, priority: 10 }),
  });
  assert.equal(res.status, 202);
  await waitFor(
    () =>
      gateway.internals.registry.get(idA) !== previous &&
      gateway.internals.registry.get(idA)?.status === 'ready',
    'replacement',
  );
  assert.equal((await getInfo(idA)).priority, 10);
  assert.equal(await routedTo(), a.url);
});

test('a worker that is not up yet shows its pending job, and deleting it cancels the job', async () => {
  // Port 9 (discard) on loopback refuses connections; the startup probe keeps retrying.
  const id = await addWorker({ url: 'http://127.0.0.1:9' });
  const info = (await (await fetch(`${gateway.url}/workers/${id}`)).json()) as {
    status: string;
    job_status: { job_type: string; status: string };
  };
  assert.equal(info.status, 'pending');
  assert.equal(info.job_status.job_type, 'AddWorker');
  assert.ok(['pending', 'processing'].includes(info.job_status.status));
  assert.equal(await routedTo(), a.url, 'a pending worker is never routed to');
  assert.equal((await fetch(`${gateway.url}/workers/${id}`, { method: 'DELETE' })).status, 202);
  await waitFor(() => gateway.internals.workers.pendingSpec(id) === undefined, 'job cancelled');
  assert.equal((await fetch(`${gateway.url}/workers/${id}`)).status, 404);
});

test('PATCH health overrides reach the health checker', async () => {
  const res = await fetch(`${gateway.url}/workers/${idA}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ health: { check_interval_secs: 7 } }),
  });
  assert.equal(res.status, 202);
  assert.deepEqual(gateway.internals.registry.get(idA)?.spec.health, { check_interval_secs: 7 });
});

test('a registration that times out stays visible as failed until deleted', async () => {
  const strict = await startTestGateway(['--worker-startup-timeout-secs', '1']);
  try {
    const res = await postJson(`${strict.url}/workers`, { url: 'http://127.0.0.1:9' });
    const { worker_id: id } = (await res.json()) as { worker_id: string };
    await waitFor(
      () => strict.internals.workers.job(id)?.status === 'failed',
      'registration failure',
      5000,
    );
    const info = (await (await fetch(`${strict.url}/workers/${id}`)).json()) as {
      status: string;
      job_status: { status: string; message: string };
    };
    assert.equal(info.status, 'failed');
    assert.match(info.job_status.message, /did not become healthy/);
    assert.equal((await fetch(`${strict.url}/workers/${id}`, { method: 'DELETE' })).status, 202);
    assert.equal((await fetch(`${strict.url}/workers/${id}`)).status, 404);
  } finally {
    await strict.close();
  }
});

test('a body over --max-payload-size on /workers is 413', async () => {
  const small = await startTestGateway(['--max-payload-size', '1024']);
  try {
    const res = await postJson(`${small.url}/workers`, {
      url: a.url,
      labels: { pad: 'x'.repeat(4096) },
    });
    assert.equal(res.status, 413);
    assert.equal(res.headers.get('x-smg-error-code'), 'payload_too_large');
  } finally {
    await small.close();
  }
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
