// --policy passthrough (SMG): every request goes to the first available worker of the model, in
// registry order; when that worker leaves rotation the next one takes all the traffic.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

let fleet: SimWorker[];
let gateway: Gateway;

before(async () => {
  fleet = await startSimFleet(3, { ttftMs: 0, itlMs: 0 });
  gateway = await startTestGateway([
    '--policy',
    'passthrough',
    '--worker-urls',
    ...fleet.map((w) => w.url),
  ]);
  await waitForReadyWorkers(gateway, 3);
});

after(async () => {
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

async function routed(): Promise<string | null> {
  const res = await postJson(`${gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'x',
    max_tokens: 1,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  return res.headers.get('x-smg-routed-worker-id');
}

test('all traffic goes to the first worker in registry order', async () => {
  const first = gateway.internals.registry.all()[0]?.url;
  assert.ok(first);
  const picks = new Set<string | null>();
  for (let i = 0; i < 12; i++) picks.add(await routed());
  assert.deepEqual([...picks], [first]);
});

test('a first worker out of rotation hands all traffic to the next one', async () => {
  const [first, second] = gateway.internals.registry.all();
  assert.ok(first && second);
  first.status = 'not_ready';
  try {
    const picks = new Set<string | null>();
    for (let i = 0; i < 6; i++) picks.add(await routed());
    assert.deepEqual([...picks], [second.url]);
  } finally {
    first.status = 'ready';
  }
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
