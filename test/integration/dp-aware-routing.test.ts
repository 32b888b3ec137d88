// --dp-aware: a worker with dp_size N becomes N logical workers `url@rank`, reached at the base
// URL with the rank in the body as data_parallel_rank; they leave together on DELETE.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitFor } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  gateway = await startTestGateway(['--dp-aware', '--policy', 'round_robin']);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

test('a dp_size 2 worker is two logical workers and requests carry their rank', async () => {
  const added = await postJson(`${gateway.url}/workers`, { url: worker.url, dp_size: 2 });
  assert.equal(added.status, 202);
  const { worker_id: id } = (await added.json()) as { worker_id: string };
  await waitFor(
    () => gateway.internals.registry.all().filter((w) => w.isHealthy).length === 2,
    'two ranks ready',
  );
  assert.deepEqual(
    gateway.internals.registry
      .all()
      .map((w) => w.key)
      .sort(),
    [`${worker.url}@0`, `${worker.url}@1`],
  );
  const ranks: unknown[] = [];
  const routed: (string | null)[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await postJson(`${gateway.url}/v1/completions`, {
      model: 'sim-model',
      prompt: 'x',
      max_tokens: 1,
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    routed.push(res.headers.get('x-smg-routed-worker-id'));
    ranks.push(
      (worker.stats().lastRequest?.body as { data_parallel_rank?: unknown }).data_parallel_rank,
    );
  }
  assert.deepEqual(ranks, [0, 1, 0, 1]);
  assert.deepEqual(routed, [
    `${worker.url}@0`,
    `${worker.url}@1`,
    `${worker.url}@0`,
    `${worker.url}@1`,
  ]);
  const put = await fetch(`${gateway.url}/workers/${id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: worker.url }),
  });
  assert.equal(put.status, 400);
  assert.equal((await fetch(`${gateway.url}/workers/${id}`, { method: 'DELETE' })).status, 202);
  await waitFor(() => gateway.internals.registry.all().length === 0, 'both ranks removed');
  await assertAllReleased(gateway);
});
