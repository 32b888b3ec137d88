import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrefillAdmission, type PlaceFn } from '../../../src/admission/prefill-admission.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { admissionHooks } from '../../../src/server/metric-bindings.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import type { Worker } from '../../../src/workers/worker.js';
import { ManualClock } from '@switchyard/kit';
import { testWorker } from '../../helpers/workers.js';

function setup(limit = 1, queueSize = 10, queueTimeoutMs = 60_000, pollMs = 1000) {
  const metrics = new GatewayMetrics();
  const registry = new WorkerRegistry(metrics);
  const clock = new ManualClock(1_000_000);
  const admission = new PrefillAdmission({
    limit,
    queueSize,
    queueTimeoutMs,
    pollMs,
    clock,
    hooks: admissionHooks(metrics).prefill,
  });
  admission.attach(registry);
  const add = (name: string): Worker => {
    const w = testWorker(name, { type: 'prefill' });
    registry.add(w);
    return w;
  };
  return { metrics, registry, admission, add, clock };
}

/** A place function over the given workers: the first one with room (a stand-in for a policy). */
const firstWithRoom =
  (workers: () => readonly Worker[]): PlaceFn =>
  (hasRoom) =>
    workers().find(hasRoom);
const never = new AbortController().signal;

test('the limit holds under a burst: never more than `limit` slots per worker', async () => {
  const { admission, add } = setup(2, 100);
  const a = add('a');
  const b = add('b');
  const slots = [];
  const pending = Array.from({ length: 10 }, () =>
    admission.acquire(
      firstWithRoom(() => [a, b]),
      never,
    ),
  );
  for (let i = 0; i < 4; i++) slots.push(await pending[i]);
  assert.equal(admission.inflight(a), 2);
  assert.equal(admission.inflight(b), 2);
  assert.equal(admission.queued, 6);
  // Each release lets exactly one waiter in, and the counts never pass the limit.
  for (let i = 4; i < 10; i++) {
    slots.shift()?.release();
    slots.push(await pending[i]);
    assert.ok(admission.inflight(a) <= 2 && admission.inflight(b) <= 2);
  }
  for (const s of slots) s?.release();
  assert.equal(admission.inflight(a) + admission.inflight(b), 0);
});

test('FIFO: a new arrival never overtakes a waiter, even for another worker', async () => {
  const { admission, add, registry } = setup(1);
  const a = add('a');
  const held = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  const order: string[] = [];
  const w1 = admission
    .acquire(
      firstWithRoom(() => registry.all()),
      never,
    )
    .then((s) => (order.push('w1'), s));
  const b = testWorker('b', { type: 'prefill' });
  // w2 wants only b, which has room once added, but it must queue behind w1.
  const w2 = admission
    .acquire(
      firstWithRoom(() => (registry.get('b') ? [b] : [])),
      never,
    )
    .then((s) => (order.push('w2'), s));
  registry.add(b); // the added event wakes the head: w1 takes b; w2 (behind it) must wait again
  const s1 = await w1;
  assert.equal(s1.worker, b);
  assert.deepEqual(order, ['w1']);
  s1.release();
  const s2 = await w2;
  assert.deepEqual(order, ['w1', 'w2']);
  s2.release();
  held.release();
});

test('queue full and queue timeout answer 429 with Retry-After, not retryable', async () => {
  const { admission, add, metrics, clock } = setup(1, 1, 30_000);
  const a = add('a');
  const held = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  const waiting = admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  await assert.rejects(
    admission.acquire(
      firstWithRoom(() => [a]),
      never,
    ),
    (e: unknown) =>
      e instanceof GatewayError &&
      e.code === 'pd_prefill_queue_full' &&
      e.status === 429 &&
      !e.retryable &&
      Number(e.headers['retry-after']) >= 1,
  );
  let settled = false;
  waiting.catch(() => undefined).finally(() => (settled = true));
  clock.advance(29_999);
  await clock.settle();
  assert.equal(settled, false, 'still waiting 1 ms before the queue timeout');
  clock.advance(1);
  await assert.rejects(
    waiting,
    (e: unknown) =>
      e instanceof GatewayError &&
      e.code === 'pd_prefill_queue_timeout' &&
      e.status === 429 &&
      Number(e.headers['retry-after']) >= 1,
  );
  const text = await metrics.render();
  assert.match(text, /smg_pd_prefill_admission_rejections_total\{reason="queue_full"\} 1/);
  assert.match(text, /smg_pd_prefill_admission_rejections_total\{reason="queue_timeout"\} 1/);
  assert.match(text, /smg_pd_prefill_admission_wait_seconds_bucket\{le="0.005"\}/);
  held.release();
});

test('a client that leaves the queue wakes the next waiter', async () => {
  const { admission, add } = setup(1);
  const a = add('a');
  const held = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  const ac = new AbortController();
  const leaving = admission.acquire(
    firstWithRoom(() => [a]),
    ac.signal,
  );
  const next = admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  ac.abort();
  await assert.rejects(leaving);
  assert.equal(admission.queued, 1);
  held.release();
  (await next).release();
  assert.equal(admission.queued, 0);
});

test('the head polls: a worker that becomes usable without an event is found', async () => {
  const { admission, add, clock } = setup(1, 10, 60_000, 20);
  const a = add('a');
  let circuitOpen = true; // half-opening emits no event
  const slot = admission.acquire((hasRoom) => (!circuitOpen && hasRoom(a) ? a : undefined), never);
  clock.advance(20);
  assert.equal(admission.queued, 1);
  circuitOpen = false;
  clock.advance(19);
  assert.equal(admission.queued, 1, 'nothing wakes the head before the next poll');
  clock.advance(1);
  assert.equal(admission.queued, 0, 'the poll placed the head');
  (await slot).release();
  assert.equal(clock.size, 0, 'an empty queue stops polling');
});

test('a strict target waits for that worker even when others have room', async () => {
  const { admission, add, clock } = setup(1);
  const a = add('a');
  const b = add('b');
  const held = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  let placedOn: Worker | undefined;
  const strict = admission
    .acquire((hasRoom) => (hasRoom(a) ? a : undefined), never)
    .then((s) => ((placedOn = s.worker), s));
  await clock.settle(1000);
  assert.equal(placedOn, undefined, 'b had room but the request targets a');
  held.release();
  (await strict).release();
  assert.equal(placedOn, a);
  void b;
});

test('a waiter whose placement throws is failed and leaves the head to the next waiter', async () => {
  const { admission, add } = setup(1);
  const a = add('a');
  const held = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  // A pinned request whose worker stops being eligible while it waits can never place.
  let targetGone = false;
  const miss = new GatewayError('server_selection_failed', 'pin names no available worker');
  const pinned = admission.acquire((hasRoom) => {
    if (targetGone) throw miss;
    return hasRoom(a) ? a : undefined;
  }, never);
  const behind = admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  assert.equal(admission.queued, 2);
  targetGone = true;
  held.release(); // wakes the head: it throws, so the waiter behind it takes the slot
  await assert.rejects(pinned, (err) => err === miss);
  const slot = await behind;
  assert.equal(slot.worker, a);
  assert.equal(admission.queued, 0);
  slot.release();
  assert.equal(admission.inflight(a), 0);
});

test('a placement that throws on arrival is refused at once, never queued', async () => {
  const { admission } = setup(1);
  const miss = new GatewayError('server_selection_failed', 'pin names no available worker');
  await assert.rejects(
    admission.acquire(() => {
      throw miss;
    }, never),
    (err) => err === miss,
  );
  assert.equal(admission.queued, 0);
});

test('removing a worker resets its gauge series', async () => {
  const { admission, add, registry, metrics } = setup(2);
  const a = add('a');
  const slot = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  assert.match(
    await metrics.render(),
    /smg_pd_prefill_admission_inflight\{worker="http:\/\/a:8000"\} 1/,
  );
  registry.remove(a.id);
  assert.doesNotMatch(
    await metrics.render(),
    /smg_pd_prefill_admission_inflight\{worker="http:\/\/a:8000"\}/,
  );
  slot.release();
  assert.doesNotMatch(
    await metrics.render(),
    /smg_pd_prefill_admission_inflight\{worker="http:\/\/a:8000"\}/,
    'a late release does not bring it back',
  );
});

test('a slot taken before a remove + re-add still occupies the engine and frees once', async () => {
  const { admission, add, registry, clock } = setup(1);
  const a = add('a');
  const old = await admission.acquire(
    firstWithRoom(() => [a]),
    never,
  );
  registry.remove(a.id);
  const a2 = add('a');
  assert.equal(admission.inflight(a2), 1, 'the old request still runs on the same engine');
  const fresh = admission.acquire(
    firstWithRoom(() => [a2]),
    never,
  );
  await clock.settle(1000);
  assert.equal(admission.queued, 1, 'the limit of 1 holds across the re-add');
  old.release();
  const slot = await fresh;
  assert.equal(admission.inflight(a2), 1, 'freed once: the new request holds the one slot');
  const third = admission.acquire(
    firstWithRoom(() => [a2]),
    never,
  );
  await clock.settle(1000);
  assert.equal(admission.queued, 1, 'the limit of 1 still holds');
  old.release();
  assert.equal(admission.queued, 1, 'a second release of the old slot frees nothing');
  slot.release();
  (await third).release();
  assert.equal(admission.inflight(a2), 0);
});
