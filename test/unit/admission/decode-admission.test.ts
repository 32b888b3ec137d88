/**
 * Decode admission: claims, the window invariant, FIFO, pacing and the claim lease. Waiting,
 * budgets and sheds are in decode-admission-wait.test.ts. No test here lets a deadline fire:
 * the clock never moves, so a waiter waits until something in the test wakes it.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import {
  DecodeAdmission,
  windowOf,
  type DecodeAdmissionHooks,
  type DecodeClaim,
} from '../../../src/admission/decode-admission.js';
import { ManualClock, seededRandom } from '@switchyard/kit';
import type { RegistryEvents } from '../../../src/workers/registry.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';

function decode(name: string, labels: Record<string, string>): Worker {
  return testWorker(name, { type: 'decode', labels });
}

function admission(hooks: DecodeAdmissionHooks = {}): DecodeAdmission {
  // A manual clock nobody advances: deadlines never fire.
  return new DecodeAdmission({ waitSecs: 30, clock: new ManualClock(), hooks });
}

/** Lets queued promise callbacks run, so a granted waiter's `then` has been seen. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Tracked {
  state: 'pending' | 'granted' | 'failed';
  claim: DecodeClaim | undefined;
}

function track(p: Promise<DecodeClaim>, onGrant?: (c: DecodeClaim) => void): Tracked {
  const t: Tracked = { state: 'pending', claim: undefined };
  p.then(
    (c) => {
      t.state = 'granted';
      t.claim = c;
      onGrant?.(c);
    },
    () => (t.state = 'failed'),
  );
  return t;
}

void describe('windowOf', () => {
  void it('prefers max_num_seqs, falls back to max_running_requests, else is undefined', () => {
    assert.equal(windowOf(decode('a', { max_num_seqs: '16', max_running_requests: '64' })), 16);
    assert.equal(windowOf(decode('a', { max_running_requests: '64' })), 64);
    assert.equal(windowOf(decode('a', { max_num_seqs: '0', max_running_requests: '8' })), 8);
    assert.equal(windowOf(decode('a', { max_num_seqs: 'many', max_running_requests: ' 8 ' })), 8);
    for (const bad of ['0', '-3', '2.5', 'abc', ''])
      assert.equal(windowOf(decode('a', { max_num_seqs: bad })), undefined);
    assert.equal(windowOf(decode('a', {})), undefined);
  });
});

void describe('DecodeAdmission claims', () => {
  void it('lets exactly one of two racers for the last room win; the other waits', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '2' });
    const first = await adm.claim(w, 1);
    const a = track(adm.claim(w, 1));
    // The claim is taken inside claim() itself, before anything awaits.
    assert.equal(adm.claimed(w), 2);
    const b = track(adm.claim(w, 1));
    assert.equal(adm.claimed(w), 2);
    assert.equal(adm.waiting(w), 1);
    await flush();
    assert.equal(a.state, 'granted');
    assert.equal(b.state, 'pending');
    first.release();
    await flush();
    assert.equal(b.state, 'granted');
    assert.equal(adm.claimed(w), 2);
  });

  void it('a batch of k claims k rooms and returns exactly k', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '16' });
    const c = await adm.claim(w, 5);
    assert.deepEqual([c.requested, c.granted, c.held, c.gated], [5, 5, 5, true]);
    assert.equal(adm.claimed(w), 5);
    c.release();
    assert.equal(adm.claimed(w), 0);
  });

  void it('grants a plan wider than the window min(k, window) rooms, and a paced run completes', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '4' });
    const c = await adm.claim(w, 10);
    assert.deepEqual([c.requested, c.granted], [10, 4]);
    // The caller's pacing: at most `granted` sub-requests in flight, tail rooms given back early.
    let inFlight = 0;
    let peak = 0;
    let next = 0;
    const runOne = async (): Promise<void> => {
      while (next < c.requested) {
        next += 1;
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await flush();
        inFlight -= 1;
        assert.ok(adm.claimed(w) <= 4);
      }
      c.releasePart(1);
    };
    await Promise.all(Array.from({ length: c.granted }, runOne));
    assert.equal(next, 10);
    assert.equal(peak, 4);
    assert.equal(adm.claimed(w), 0);
    c.release();
    assert.equal(adm.claimed(w), 0);
  });

  void it('a wide request waits until min(k, window) rooms are free', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '4' });
    const held = await adm.claim(w, 1);
    const wide = track(adm.claim(w, 10));
    await flush();
    assert.equal(wide.state, 'pending');
    held.release();
    await flush();
    assert.equal(wide.claim?.granted, 4);
    assert.equal(adm.claimed(w), 4);
  });

  void it('grants a wide request before narrow ones that arrived after it (FIFO, no starvation)', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '4' });
    const order: string[] = [];
    const running = await Promise.all([1, 2, 3].map(() => adm.claim(w, 1)));
    const wide = track(adm.claim(w, 4), () => order.push('wide'));
    // A room is free, but later single-room requests queue behind the wide one.
    const narrow = [1, 2, 3, 4, 5].map((i) => track(adm.claim(w, 1), () => order.push(`n${i}`)));
    assert.equal(adm.claimed(w), 3);
    assert.equal(adm.waiting(w), 6);
    for (const r of running) {
      await flush();
      assert.equal(wide.state, 'pending');
      assert.ok(narrow.every((n) => n.state === 'pending'));
      r.release();
    }
    await flush();
    assert.deepEqual(order, ['wide']);
    assert.equal(adm.claimed(w), 4);
    wide.claim?.release();
    await flush();
    assert.deepEqual(order, ['wide', 'n1', 'n2', 'n3', 'n4']);
    narrow[0]?.claim?.release();
    await flush();
    assert.deepEqual(order, ['wide', 'n1', 'n2', 'n3', 'n4', 'n5']);
  });

  void it('never exceeds the window under a burst of 100 claims with random releases', async () => {
    const window = 8;
    const violations: string[] = [];
    const adm = admission({
      onClaimedChange: (_key, claimed) => {
        if (claimed < 0 || claimed > window) violations.push(`claimed ${claimed}`);
      },
    });
    const w = decode('d', { max_num_seqs: String(window) });
    const random = seededRandom(7);
    const granted: number[] = [];
    const held: DecodeClaim[] = [];
    for (let i = 0; i < 100; i += 1) {
      // Mostly single rooms, some batches, a few plans wider than the window.
      const r = random.next();
      const rooms = r < 0.6 ? 1 : r < 0.9 ? 2 + Math.floor(random.next() * 4) : 12;
      void adm.claim(w, rooms).then((c) => {
        granted.push(i);
        held.push(c);
      });
      assert.ok(adm.claimed(w) <= window);
    }
    let steps = 0;
    while (granted.length < 100 || held.length > 0) {
      await flush();
      assert.ok(steps < 10_000, 'the burst must drain');
      assert.ok(adm.claimed(w) <= window, `step ${steps}: ${adm.claimed(w)} > ${window}`);
      const i = Math.floor(random.next() * held.length);
      steps += 1;
      const c = held[i];
      if (c === undefined) continue;
      if (c.held > 1 && random.next() < 0.3) {
        c.releasePart(1);
      } else {
        held.splice(i, 1);
        c.release();
      }
      assert.ok(adm.claimed(w) <= window);
    }
    assert.deepEqual(violations, []);
    // Strict FIFO: grants come in arrival order.
    assert.deepEqual(
      granted,
      Array.from({ length: 100 }, (_, i) => i),
    );
    assert.equal(adm.claimed(w), 0);
    assert.equal(adm.waiting(w), 0);
  });

  void it('does not gate a worker that reports no window', async () => {
    const changes: number[] = [];
    const adm = admission({ onClaimedChange: (_k, n) => changes.push(n) });
    const w = decode('d', {});
    const claims = await Promise.all(Array.from({ length: 50 }, () => adm.claim(w, 3)));
    assert.ok(claims.every((c) => !c.gated && c.granted === 3));
    assert.equal(adm.claimed(w), 0);
    for (const c of claims) c.release();
    assert.deepEqual(changes, []);
  });

  void it('follows window label changes seen by the next claim, waiters first', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '2' });
    const held = await adm.claim(w, 2);
    const waiter = track(adm.claim(w, 1));
    w.labels = { max_num_seqs: '4' };
    const late = track(adm.claim(w, 1));
    await flush();
    assert.deepEqual([waiter.state, late.state, adm.claimed(w)], ['granted', 'granted', 4]);
    // Shrinking below what is claimed admits nobody until enough is released.
    w.labels = { max_num_seqs: '2' };
    const shrunk = track(adm.claim(w, 1));
    held.release();
    await flush();
    assert.equal(shrunk.state, 'pending');
    waiter.claim?.release();
    await flush();
    assert.equal(shrunk.state, 'granted');
    // A worker that stops reporting a window lets its waiters through ungated.
    const queued = track(adm.claim(w, 1));
    w.labels = {};
    const free = await adm.claim(w, 5);
    await flush();
    assert.equal(free.gated, false);
    assert.equal(queued.claim?.gated, false);
  });

  void it('rejects a non-positive or fractional room count', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '4' });
    for (const bad of [0, -1, 1.5, Number.NaN]) await assert.rejects(adm.claim(w, bad), RangeError);
    assert.equal(adm.claimed(w), 0);
  });
});

void describe('DecodeClaim lease', () => {
  void it('release is idempotent and returns exactly the granted rooms', async () => {
    const changes: number[] = [];
    const adm = admission({ onClaimedChange: (_k, n) => changes.push(n) });
    const w = decode('d', { max_num_seqs: '8' });
    const other = await adm.claim(w, 2);
    const c = await adm.claim(w, 3);
    c.release();
    c.release();
    c.releasePart(1);
    assert.equal(c.released, true);
    assert.equal(adm.claimed(w), 2);
    assert.deepEqual(changes, [2, 5, 2]);
    other.release();
    assert.equal(adm.claimed(w), 0);
  });

  void it('releasePart gives back rooms early and release returns only the rest', async () => {
    const adm = admission();
    const w = decode('d', { max_num_seqs: '8' });
    const c = await adm.claim(w, 5);
    c.releasePart(2);
    assert.deepEqual([c.held, c.granted, c.released, adm.claimed(w)], [3, 5, false, 3]);
    c.releasePart(10);
    assert.deepEqual([c.held, c.released, adm.claimed(w)], [0, true, 0]);
    c.release();
    assert.equal(adm.claimed(w), 0);
    assert.throws(() => c.releasePart(-1), RangeError);
  });

  void it('a same-URL replacement inherits outstanding claims and its new window', async () => {
    const registry = new EventEmitter<RegistryEvents>();
    const adm = admission();
    adm.attach(registry);
    const before = decode('d', { max_num_seqs: '2' });
    const held = await adm.claim(before, 2);
    const waiter = track(adm.claim(before, 1));
    const after = decode('d', { max_num_seqs: '3' });
    registry.emit('replaced', before, after);
    await flush();
    assert.equal(waiter.state, 'granted');
    assert.equal(adm.claimed(after), 3);
    held.release();
    assert.equal(adm.claimed(after), 1);
    waiter.claim?.release();
    assert.equal(adm.claimed(after), 0);
  });
});
