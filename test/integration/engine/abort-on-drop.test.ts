// SMG's abort-on-drop cases (reference §5.2, grpc_client/tests/abort_on_drop_deferred.rs) against
// a real grpc-js server that records each Abort and lets the test decide when the first item
// goes out. "No abort yet" is checked after a HealthCheck round trip on the same channel, and
// the deferral cap on a ManualClock, so nothing sleeps.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { EngineRuntime } from '@switchyard/protos';
import { waitFor } from '../../helpers/wait-for.js';
import {
  ONE_TOKEN_CHUNK,
  startGenerateRig,
  streamedInput,
  unary,
  type GenerateRig,
} from './engine-server.js';

interface Rig extends GenerateRig {
  aborts: Record<string, unknown>[];
}

const closers: (() => void)[] = [];
after(() => closers.forEach((close) => close()));

async function rig(runtime: EngineRuntime): Promise<Rig> {
  const aborts: Record<string, unknown>[] = [];
  const r = await startGenerateRig(
    runtime,
    unary(runtime === 'vllm' ? {} : { success: true }, aborts),
  );
  closers.push(r.close);
  return { ...r, aborts };
}

const request = streamedInput;

const CHUNK = ONE_TOKEN_CHUNK;

test('default mode: dropping a call aborts it at once with "Stream dropped"', async () => {
  const r = await rig('sglang');
  const call = r.client.generate(request('drop-1'));
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort');
  assert.deepEqual(r.aborts, [{ request_id: 'drop-1', reason: 'Stream dropped' }]);
});

test('vLLM drop-abort sends request_ids: [id] and no reason', async () => {
  const r = await rig('vllm');
  const call = r.client.generate(request('drop-v'));
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort');
  assert.deepEqual(r.aborts, [{ request_ids: ['drop-v'] }]);
});

test('deferred: no abort while no item was sent; the first item releases it', async () => {
  const r = await rig('sglang');
  const call = r.client.generate(request('defer-1')).deferAbortUntilFirstItem();
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  call.dispose();
  let closed = false;
  void call.closed.then(() => (closed = true));
  await r.clock.settle(29_000);
  await r.roundTrip();
  assert.deepEqual(r.aborts, [], 'no abort before the first item');
  assert.equal(closed, false, 'the engine still holds the call: not closed');
  r.streams[0]!.write(CHUNK);
  await waitFor(() => r.aborts.length === 1, 'the Abort after the first item');
  await call.closed;
  assert.deepEqual(r.aborts, [{ request_id: 'defer-1', reason: 'Stream dropped' }]);
});

test('disposeNow aborts a deferred call at once, before or after its dispose', async () => {
  const r = await rig('sglang');
  const fresh = r.client.generate(request('now-1')).deferAbortUntilFirstItem();
  const waiting = r.client.generate(request('now-2')).deferAbortUntilFirstItem();
  await waitFor(() => r.streams.length === 2, 'both Generates to arrive');
  // A retired leg: never deferred, though it was marked deferred when it was sent.
  fresh.disposeNow();
  await waitFor(() => r.aborts.length === 1, 'the Abort of the fresh call');
  // Already disposed and waiting for its first item: the wait ends now.
  waiting.dispose();
  await r.roundTrip();
  assert.equal(r.aborts.length, 1, 'the deferred dispose waits');
  waiting.disposeNow();
  await waitFor(() => r.aborts.length === 2, 'the Abort of the waiting call');
  assert.deepEqual(r.aborts, [
    { request_id: 'now-1', reason: 'Stream dropped' },
    { request_id: 'now-2', reason: 'Stream dropped' },
  ]);
});

test('deferred: the wait is capped at 30 s', async () => {
  const r = await rig('tokenspeed');
  const call = r.client.generate(request('defer-cap')).deferAbortUntilFirstItem();
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  call.dispose();
  await r.clock.settle(29_999);
  await r.roundTrip();
  assert.deepEqual(r.aborts, []);
  await r.clock.settle(1);
  await waitFor(() => r.aborts.length === 1, 'the Abort at the cap');
  assert.deepEqual(r.aborts, [{ request_id: 'defer-cap', reason: 'Stream dropped' }]);
});

test('deferred: an item already consumed makes the abort immediate', async () => {
  const r = await rig('sglang');
  const call = r.client.generate(request('defer-2')).deferAbortUntilFirstItem();
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  r.streams[0]!.write(CHUNK);
  const first = await call[Symbol.asyncIterator]().next();
  assert.equal(first.done, false);
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort');
});

test('markCompleted suppresses the abort, deferred or not', async () => {
  const r = await rig('sglang');
  const plain = r.client.generate(request('done-1'));
  const deferred = r.client.generate(request('done-2')).deferAbortUntilFirstItem();
  await waitFor(() => r.streams.length === 2, 'both Generates to arrive');
  for (const call of [plain, deferred]) {
    call.markCompleted();
    call.dispose();
  }
  await r.clock.settle(30_000);
  await r.roundTrip();
  assert.deepEqual(r.aborts, []);
  await waitFor(
    () => r.streams.every((s) => s.cancelled),
    'the completed calls to be cancelled quietly',
  );
});

test('a started call dropped mid-stream aborts, and iterating after dispose ends', async () => {
  const r = await rig('sglang');
  const call = r.client.generate(request('fail-1'));
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  r.streams[0]!.write(CHUNK);
  await call.started;
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort');
  const after = await call[Symbol.asyncIterator]().next();
  assert.equal(after.done, true);
});

test('a call refused before it started leaves no unhandled rejection and sends no Abort', async () => {
  const r = await rig('sglang');
  const call = r.client.generate(request('ignored'));
  await waitFor(() => r.streams.length === 1, 'the Generate to arrive');
  r.streams[0]!.emit('error', { code: grpc.status.UNAVAILABLE, details: 'down' });
  await assert.rejects(call.started);
  call.dispose();
  await r.roundTrip();
  assert.deepEqual(r.aborts, [], 'nothing to abort: the engine never started the request');
});
