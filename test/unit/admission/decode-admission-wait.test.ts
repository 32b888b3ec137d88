/**
 * Decode admission waiting: the budget carried across attempts, sheds with Retry-After, client
 * aborts and registry events. Time is a ManualClock, so a 30 s budget runs out without sleeping.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import {
  DecodeAdmission,
  WaitBudget,
  type DecodeAdmissionHooks,
  type DecodeClaim,
} from '../../../src/admission/decode-admission.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { RegistryEvents } from '../../../src/workers/registry.js';
import type { Worker } from '../../../src/workers/worker.js';
import { ManualClock } from '@switchyard/kit';
import { testWorker } from '../../helpers/workers.js';

interface Events {
  waits: string[];
  sheds: string[];
  gone: string[];
  changes: number[];
}

function setup(waitSecs = 30): {
  adm: DecodeAdmission;
  clock: ManualClock;
  events: Events;
} {
  const clock = new ManualClock(1_000_000);
  const events: Events = { waits: [], sheds: [], gone: [], changes: [] };
  const hooks: DecodeAdmissionHooks = {
    onWait: (key) => events.waits.push(key),
    onShed: (key, reason) => events.sheds.push(`${key} ${reason}`),
    onWorkerGone: (key) => events.gone.push(key),
    onClaimedChange: (_key, n) => events.changes.push(n),
  };
  return { adm: new DecodeAdmission({ waitSecs, clock, hooks }), clock, events };
}

function decode(name: string, window: number): Worker {
  return testWorker(name, { type: 'decode', labels: { max_num_seqs: String(window) } });
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Tracked {
  state: 'pending' | 'granted' | 'failed';
  claim: DecodeClaim | undefined;
  error: unknown;
}

function track(p: Promise<DecodeClaim>): Tracked {
  const t: Tracked = { state: 'pending', claim: undefined, error: undefined };
  p.then(
    (c) => Object.assign(t, { state: 'granted', claim: c }),
    (e: unknown) => Object.assign(t, { state: 'failed', error: e }),
  );
  return t;
}

function assertShed(err: unknown, retryAfter: string, pattern: RegExp): void {
  assert.ok(err instanceof GatewayError, String(err));
  assert.equal(err.code, 'no_available_workers');
  assert.equal(err.status, 503);
  assert.equal(err.retryable, true);
  assert.equal(err.headers['retry-after'], retryAfter);
  assert.match(err.message, pattern);
}

void describe('DecodeAdmission waiting', () => {
  void it('waits, then admits on release, charging the budget only the time waited', async () => {
    const { adm, clock, events } = setup();
    const w = decode('d', 1);
    const held = await adm.claim(w, 1);
    const budget = adm.newBudget();
    const waiter = track(adm.claim(w, 1, { budget }));
    assert.equal(clock.size, 1);
    clock.advance(5_000);
    held.release();
    await flush();
    assert.equal(waiter.state, 'granted');
    assert.equal(budget.remainingMs, 25_000);
    assert.equal(clock.size, 0, 'the deadline is cancelled on grant');
    assert.deepEqual(events.waits, ['http://d:8000']);
    assert.deepEqual(events.sheds, []);
  });

  void it('sheds with a retryable 503 and Retry-After when the budget runs out', async () => {
    const { adm, clock, events } = setup();
    const w = decode('d', 2);
    await adm.claim(w, 2);
    const budget = adm.newBudget();
    const waiter = track(adm.claim(w, 1, { budget }));
    clock.advance(29_999);
    await flush();
    assert.equal(waiter.state, 'pending');
    clock.advance(1);
    await flush();
    assert.equal(waiter.state, 'failed');
    assertShed(waiter.error, '15', /Decode worker http:\/\/d:8000 is at its running window \(2\)/);
    assert.equal(budget.exhausted, true);
    assert.equal(adm.waiting(w), 0);
    assert.deepEqual(events.sheds, ['http://d:8000 budget']);
  });

  void it('sheds at once with wait 0, or when the budget is already spent, but admits if there is room', async () => {
    const zero = setup(0);
    const w = decode('d', 1);
    const held = await zero.adm.claim(w, 1);
    await assert.rejects(
      zero.adm.claim(w, 1),
      (e) => (assertShed(e, '1', /admission waiting is disabled/), true),
    );
    assert.equal(zero.clock.size, 0);
    assert.deepEqual(zero.events.waits, []);

    const { adm, clock } = setup();
    const spent = adm.newBudget();
    spent.consume(30_000);
    await adm.claim(w, 1);
    await assert.rejects(
      adm.claim(w, 1, { budget: spent }),
      (e) => (assertShed(e, '15', /30s admission wait/), true),
    );
    assert.equal(clock.size, 0);
    held.release();
    const other = decode('e', 1);
    assert.equal((await adm.claim(other, 1, { budget: spent })).granted, 1);
  });

  void it('shares one budget across attempts: the retry waits only the remainder', async () => {
    const registry = new EventEmitter<RegistryEvents>();
    const { adm, clock } = setup();
    adm.attach(registry);
    const a = decode('a', 1);
    const b = decode('b', 1);
    await adm.claim(a, 1);
    await adm.claim(b, 1);
    const budget = adm.newBudget();
    const first = track(adm.claim(a, 1, { budget }));
    clock.advance(12_000);
    registry.emit('removed', a);
    await flush();
    assertShed(first.error, '1', /was removed/);
    assert.equal(budget.remainingMs, 18_000);

    const second = track(adm.claim(b, 1, { budget }));
    assert.equal(clock.size, 1);
    clock.advance(17_999);
    await flush();
    assert.equal(second.state, 'pending');
    clock.advance(1);
    await flush();
    assertShed(second.error, '15', /running window \(1\)/);
    // A third attempt does not wait at all.
    await assert.rejects(adm.claim(b, 1, { budget }), GatewayError);
    assert.equal(clock.size, 0);
  });

  void it('a client abort removes the waiter at once and the next waiter is granted', async () => {
    const { adm, clock } = setup();
    const w = decode('d', 2);
    const held = await adm.claim(w, 1);
    const client = new AbortController();
    const wide = track(adm.claim(w, 2, { signal: client.signal }));
    const narrow = track(adm.claim(w, 1));
    await flush();
    assert.equal(narrow.state, 'pending', 'queued behind the wide waiter');
    const reason = new Error('client disconnected');
    client.abort(reason);
    await flush();
    assert.equal(wide.error, reason);
    // The free room the wide waiter was holding goes to the next in line without any release.
    assert.equal(narrow.state, 'granted');
    assert.deepEqual([adm.claimed(w), adm.waiting(w)], [2, 0]);
    assert.equal(clock.size, 0);
    held.release();
    narrow.claim?.release();
    assert.equal(adm.claimed(w), 0);
  });

  void it('rejects at once with the reason when the signal has already aborted', async () => {
    const { adm } = setup();
    const reason = new Error('gone');
    await assert.rejects(
      adm.claim(decode('d', 4), 1, { signal: AbortSignal.abort(reason) }),
      (e) => e === reason,
    );
  });
});

void describe('DecodeAdmission registry events', () => {
  void it('fails waiters of a removed worker retryably and drops its gauge series', async () => {
    const registry = new EventEmitter<RegistryEvents>();
    const { adm, events, clock } = setup();
    adm.attach(registry);
    const w = decode('d', 1);
    const held = await adm.claim(w, 1);
    const waiters = [track(adm.claim(w, 1)), track(adm.claim(w, 1))];
    registry.emit('removed', w);
    await flush();
    for (const t of waiters) assertShed(t.error, '1', /http:\/\/d:8000 was removed/);
    assert.deepEqual(events.gone, ['http://d:8000']);
    assert.deepEqual(events.sheds, ['http://d:8000 removed', 'http://d:8000 removed']);
    assert.equal(clock.size, 0);
    // The request still running there releases without resurrecting the series.
    const changes = events.changes.length;
    held.release();
    assert.equal(events.changes.length, changes);
    assert.equal(adm.claimed(w), 0);
  });

  void it('a worker re-added while its old claims run keeps counting them', async () => {
    const registry = new EventEmitter<RegistryEvents>();
    const { adm, events } = setup();
    adm.attach(registry);
    const w = decode('d', 2);
    const held = await adm.claim(w, 2);
    registry.emit('removed', w);
    registry.emit('added', w);
    assert.equal(events.changes.at(-1), 2);
    const waiter = track(adm.claim(w, 1));
    await flush();
    assert.equal(waiter.state, 'pending');
    held.release();
    await flush();
    assert.equal(waiter.state, 'granted');
  });

  void it('fails waiters of a worker that stops being ready', async () => {
    const registry = new EventEmitter<RegistryEvents>();
    const { adm } = setup();
    adm.attach(registry);
    const w = decode('d', 1);
    await adm.claim(w, 1);
    const waiter = track(adm.claim(w, 1));
    w.status = 'not_ready';
    registry.emit('health', w, 'ready');
    await flush();
    assertShed(waiter.error, '1', /stopped being ready/);
  });

  void it('detaches from the registry', async () => {
    const registry = new EventEmitter<RegistryEvents>();
    const { adm } = setup();
    const detach = adm.attach(registry);
    detach();
    assert.equal(registry.listenerCount('removed'), 0);
    const w = decode('d', 1);
    await adm.claim(w, 1);
    const waiter = track(adm.claim(w, 1));
    registry.emit('removed', w);
    await flush();
    assert.equal(waiter.state, 'pending');
  });
});

void describe('WaitBudget', () => {
  void it('starts from --pd-admission-wait-secs and never goes below zero', () => {
    const b = WaitBudget.fromSecs(30);
    assert.deepEqual([b.initialMs, b.remainingMs, b.exhausted], [30_000, 30_000, false]);
    b.consume(-5);
    b.consume(Number.NaN);
    assert.equal(b.remainingMs, 30_000);
    b.consume(40_000);
    assert.deepEqual([b.remainingMs, b.exhausted], [0, true]);
    assert.equal(WaitBudget.fromSecs(0).exhausted, true);
    assert.throws(() => new WaitBudget(-1), RangeError);
  });
});
