// A call's `closed` (what frees its prefill slot or decode room) waits for the engine to let go of
// the request, not for the gateway's cancel: an aborted call closes when the engine answers its
// Abort, a call the engine ends (done or failed) closes then, a call refused before it started or
// cancelled after its last complete closes at once. And `expireAfter` bounds a started call.
// Against a real grpc-js server whose Abort the test answers when it chooses.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { EngineCallError } from '../../../src/engine/types.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  ONE_TOKEN_CHUNK,
  startGenerateRig,
  streamedInput,
  type GenerateRig,
} from './engine-server.js';

interface Rig extends GenerateRig {
  /** Abort requests received, each with the function that answers it. */
  aborts: { request: unknown; answer: () => void }[];
}

const closers: (() => void)[] = [];
after(() => closers.forEach((close) => close()));

/** `abortFails`: the engine answers each Abort with an error instead of success. */
async function rig(abortFails = false): Promise<Rig> {
  const aborts: Rig['aborts'] = [];
  const r = await startGenerateRig('sglang', (call, cb) => {
    const answer = abortFails
      ? () => cb({ code: grpc.status.INTERNAL, details: 'abort failed' })
      : () => cb(null, { success: true });
    aborts.push({ request: call.request, answer });
  });
  closers.push(r.close);
  return { ...r, aborts };
}

const request = streamedInput;

const CHUNK = ONE_TOKEN_CHUNK;

function watch(p: Promise<void>): () => boolean {
  let done = false;
  void p.then(() => (done = true));
  return () => done;
}

test('an aborted call is closed only once the engine answers its Abort', async () => {
  const r = await rig();
  const call = r.client.generate(request('a-1'));
  await waitFor(() => r.streams.length === 1, 'the Generate');
  r.streams[0]!.write(CHUNK);
  await call.started;
  const closed = watch(call.closed);
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort');
  await r.roundTrip();
  assert.equal(closed(), false, 'cancelled, but the engine may still hold the request');
  r.aborts[0]!.answer();
  await call.closed;
});

test('a call the engine ends is closed then, done or failed', async () => {
  const r = await rig();
  const done = r.client.generate(request('e-1'));
  const failed = r.client.generate(request('e-2'));
  await waitFor(() => r.streams.length === 2, 'both Generates');
  const doneClosed = watch(done.closed);
  const failedClosed = watch(failed.closed);
  r.streams[1]!.write(CHUNK);
  await failed.started;
  await r.roundTrip();
  assert.deepEqual([doneClosed(), failedClosed()], [false, false], 'the engine holds both');
  r.streams[0]!.end();
  await done.closed;
  assert.equal(failedClosed(), false, 'one ending closes only that one');
  r.streams[1]!.emit('error', { code: grpc.status.INTERNAL, details: 'boom' });
  await failed.closed;
});

test('an Abort the engine answers with an error still closes the call', async () => {
  const r = await rig(true);
  const call = r.client.generate(request('f-1'));
  await waitFor(() => r.streams.length === 1, 'the Generate');
  r.streams[0]!.write(CHUNK);
  await call.started;
  const closed = watch(call.closed);
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort');
  await r.roundTrip();
  assert.equal(closed(), false, 'not before the Abort is answered');
  r.aborts[0]!.answer();
  await call.closed;
});

test('refused before it started, or cancelled after its last complete: closed at once', async () => {
  const r = await rig();
  const refused = r.client.generate(request('r-1'));
  const completed = r.client.generate(request('r-2'));
  await waitFor(() => r.streams.length === 2, 'both Generates');
  r.streams[0]!.emit('error', { code: grpc.status.UNAVAILABLE, details: 'down' });
  await assert.rejects(refused.started);
  refused.dispose();
  await refused.closed;
  completed.markCompleted();
  completed.dispose();
  await completed.closed;
  await r.roundTrip();
  assert.equal(r.aborts.length, 0, 'neither needed an Abort');
});

test('expireAfter fails a started call that outlives it, then its dispose aborts it', async () => {
  const r = await rig();
  const call = r.client.generate(request('d-1')).expireAfter(1_000);
  await waitFor(() => r.streams.length === 1, 'the Generate');
  r.streams[0]!.write(CHUNK);
  await call.started;
  const it = call[Symbol.asyncIterator]();
  assert.equal((await it.next()).done, false);
  const rejected = assert.rejects(it.next(), (err: unknown) => {
    assert.ok(err instanceof EngineCallError);
    assert.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
    assert.equal(err.beforeStart, false);
    return true;
  });
  await r.clock.settle(1_000);
  await rejected;
  call.dispose();
  await waitFor(() => r.aborts.length === 1, 'the Abort of the expired call');
  r.aborts[0]!.answer();
  await call.closed;
});

test('expireAfter aborts at the deadline even while the owner is not reading', async () => {
  const r = await rig();
  const call = r.client.generate(request('d-3')).expireAfter(1_000);
  await waitFor(() => r.streams.length === 1, 'the Generate');
  r.streams[0]!.write(CHUNK);
  await call.started;
  // As an owner stuck writing to a slow client: nothing reads the call until after the deadline.
  await r.clock.settle(1_000);
  await waitFor(() => r.aborts.length === 1, 'the Abort at the deadline');
  assert.deepEqual(r.aborts[0]!.request, { request_id: 'd-3', reason: 'Stream dropped' });
  r.aborts[0]!.answer();
  await call.closed;
  // The owner still reads what came, then the deadline's error; its dispose sends no second Abort.
  const it = call[Symbol.asyncIterator]();
  assert.equal((await it.next()).done, false);
  await assert.rejects(it.next(), (err: unknown) => {
    assert.ok(err instanceof EngineCallError);
    assert.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
    return true;
  });
  call.dispose();
  await r.roundTrip();
  assert.equal(r.aborts.length, 1);
});

test('expireAfter leaves a call that ended in time alone, and an ended call needs no Abort', async () => {
  const r = await rig();
  const call = r.client.generate(request('d-2')).expireAfter(1_000);
  await waitFor(() => r.streams.length === 1, 'the Generate');
  r.streams[0]!.write(CHUNK);
  r.streams[0]!.end();
  const seen: unknown[] = [];
  for await (const out of call) seen.push(out);
  assert.equal(seen.length, 1);
  await r.clock.settle(2_000);
  call.dispose();
  await call.closed;
  await r.roundTrip();
  assert.equal(r.aborts.length, 0);
});
