// A client that goes away mid-stream aborts the upstream request at once: the worker sees its
// connection close (so the engine frees the slot) and the gateway's load lease is released.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { waitForStats } from '@switchyard/sim/testing';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  // Slow tokens: the stream is still running when the client leaves.
  worker = await startSimWorker({ model: 'sim-model', ttftMs: 5, itlMs: 50 });
  gateway = await startTestGateway(['--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

test('closing the client mid-stream aborts the worker request and releases the load', async () => {
  const ac = new AbortController();
  const res = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'sim-model',
      messages: [{ role: 'user', content: 'long story' }],
      max_tokens: 200,
      stream: true,
    }),
    signal: ac.signal,
  });
  assert.equal(res.statusCode, 200);
  // Read the first chunk so the stream is known to be flowing, then hang up.
  const iterator = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.ok(!first.done && first.value.length > 0);
  const worker0 = gateway.internals.registry.all()[0];
  assert.equal(worker0?.load, 1, 'the stream holds one load lease while it runs');
  ac.abort();
  const stats = await waitForStats(worker, (s) => s.aborted === 1 && s.running === 0, 2000);
  assert.equal(stats.completed, 0, 'the worker did not finish the 200-token generation');
  await assertAllReleased(gateway);
});

test('closing the client before the first token also aborts the worker request', async () => {
  worker.setFaults({ hang: true });
  const before = worker.stats().aborted;
  const ac = new AbortController();
  const pending = request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-model', prompt: 'wait', max_tokens: 5 }),
    signal: ac.signal,
  });
  await waitForStats(worker, (s) => s.running === 1);
  ac.abort();
  await assert.rejects(pending);
  await waitForStats(worker, (s) => s.aborted === before + 1 && s.running === 0, 2000);
  worker.setFaults({});
  await assertAllReleased(gateway);
});
