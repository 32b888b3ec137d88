// A model served by an HTTP worker and a gRPC worker at once (moving from one to the other):
// its requests go to both, in proportion to the available workers of each kind, and when one
// kind has no available worker left, all go to the other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seededRandom } from '@switchyard/kit';
import { startSimGrpcWorker, startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitFor } from '../../helpers/gateway.js';
import { waitForReadiness } from '../../helpers/grpc.js';

let http: SimWorker;
let grpc: SimWorker;
let gateway: Gateway;

before(async () => {
  http = await startSimWorker({ runtime: 'sglang', ttftMs: 1, itlMs: 1 });
  grpc = await startSimGrpcWorker({ runtime: 'sglang', ttftMs: 1, itlMs: 1 });
  gateway = await startTestGateway(['--worker-urls', http.url, grpc.url], {
    random: seededRandom(7),
  });
  await waitForReadiness(gateway);
  await waitFor(
    () =>
      gateway.internals.tokenizers.has('sim-model') &&
      gateway.internals.registry.all().every((w) => w.isAvailable()),
    'both workers ready and the tokenizer loaded',
  );
});

after(async () => {
  await gateway.close();
  await http.close();
  await grpc.close();
});

async function routedTo(): Promise<string> {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'sim-model',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
    }),
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  return res.headers.get('x-smg-routed-worker-id') ?? '';
}

test('requests of one model split between its HTTP and gRPC workers', async () => {
  const seen = new Map<string, number>();
  for (let i = 0; i < 40; i++) {
    const to = await routedTo();
    seen.set(to, (seen.get(to) ?? 0) + 1);
  }
  assert.deepEqual([...seen.keys()].sort(), [grpc.url, http.url].sort());
  for (const [url, n] of seen) assert.ok(n >= 8, `${url} got ${n} of 40`);
  await assertAllReleased(gateway);
});

test('with the gRPC worker unavailable, every request goes to the HTTP worker', async () => {
  const worker = gateway.internals.registry.all().find((w) => w.url === grpc.url);
  assert.ok(worker);
  gateway.internals.registry.setStatus(worker, 'not_ready');
  assert.equal(worker.isAvailable(), false);
  for (let i = 0; i < 10; i++) assert.equal(await routedTo(), http.url);
  gateway.internals.registry.setStatus(worker, 'ready');
  await assertAllReleased(gateway);
});

test('while the gRPC workers tokenizer loads, the model stays on its HTTP workers', async () => {
  const slow = await startSimGrpcWorker({
    runtime: 'sglang',
    model: 'moving',
    tokenizerPathLabel: '/not/on/this/host',
    faults: { tokenizerDelayMs: 60_000 },
  });
  const old = await startSimWorker({ runtime: 'sglang', model: 'moving', ttftMs: 1, itlMs: 1 });
  const gw = await startTestGateway(['--worker-urls', old.url, slow.url]);
  try {
    await waitFor(
      () => gw.internals.registry.all().filter((w) => w.isAvailable()).length === 2,
      'both workers ready',
    );
    assert.equal(gw.internals.tokenizers.has('moving'), false);
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'moving', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-smg-routed-worker-id'), old.url);
      await res.arrayBuffer();
    }
    await assertAllReleased(gw);
  } finally {
    await gw.close();
    await slow.close();
    await old.close();
  }
});
