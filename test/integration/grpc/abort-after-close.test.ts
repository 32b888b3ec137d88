// The engine is told to abort a stream its client left even when the worker's channel is
// being closed at that moment: the worker removed while the stream ran, or the gateway shutting
// down past its grace period. The channel closes only after the running calls and their Aborts.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { startSimGrpcWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { waitFor } from '../../helpers/gateway.js';
import { generateRequests, startGrpcGateway } from '../../helpers/grpc.js';

let engine: SimWorker;
let gateway: Gateway;

beforeEach(async () => {
  engine = await startSimGrpcWorker({
    runtime: 'sglang',
    ttftMs: 1,
    itlMs: 20,
    answerText: Array.from({ length: 300 }, (_, i) => `word${i}`).join(' '),
  });
  gateway = await startGrpcGateway([engine]);
});

afterEach(async () => {
  await gateway.close();
  await engine.close();
});

/** Starts a stream and waits for its first bytes; returns the controller and the engine id. */
async function startStream(): Promise<{ controller: AbortController; id: string }> {
  const controller = new AbortController();
  const from = generateRequests(engine).length;
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'sim-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    }),
    signal: controller.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body?.getReader();
  await reader?.read();
  void reader?.read().catch(() => undefined);
  return { controller, id: String(generateRequests(engine)[from]?.request_id) };
}

const abortedIds = (): string[] => (engine.grpc?.aborts ?? []).flatMap((a) => a.requestIds);

test('a client leaving after its worker was removed still aborts the engine request', async () => {
  const { controller, id } = await startStream();
  const [worker] = gateway.internals.registry.all();
  const removed = await fetch(`${gateway.url}/workers/${worker?.id ?? ''}`, { method: 'DELETE' });
  assert.ok(removed.status < 300, `DELETE answered ${removed.status}`);
  await removed.arrayBuffer();
  await waitFor(() => gateway.internals.registry.all().length === 0, 'the worker removed');
  controller.abort();
  await waitFor(() => abortedIds().includes(id), `an Abort for ${id}`);
});

test('a stream still running when shutdown cuts the connections is aborted', async () => {
  const { id } = await startStream();
  await gateway.close();
  await waitFor(() => abortedIds().includes(id), `an Abort for ${id}`);
});
