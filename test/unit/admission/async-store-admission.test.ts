/**
 * Both admission controllers over an async store shared by several processes: the limit holds
 * across them, a waiter asks one take at a time, a late grant for a waiter that left goes back,
 * wake-ups come from other processes' give-backs, and the poll covers a lost wake-up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import {
  DecodeAdmission,
  decodeStoreKey,
  type DecodeClaim,
} from '../../../src/admission/decode-admission.js';
import {
  PrefillAdmission,
  prefillStoreKey,
  type PrefillSlot,
} from '../../../src/admission/prefill-admission.js';
import { STORE_POLL_MS } from '../../../src/admission/store/types.js';
import { testWorker } from '../../helpers/workers.js';
import { SharedCounts, type DeferredStore } from '../../helpers/deferred-store.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const decodeWorker = testWorker('d', { type: 'decode', labels: { max_num_seqs: '2' } });
const never = new AbortController().signal;
const DKEY = decodeStoreKey(decodeWorker.key);

function decodeIn(store: DeferredStore, clock = new ManualClock()): DecodeAdmission {
  return new DecodeAdmission({ waitSecs: 30, clock, store });
}

/** Answers every store's takes until no more are asked (grants may start the next head's take). */
async function answerAll(...stores: DeferredStore[]): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await flush();
    if (stores.every((s) => s.inFlight === 0)) return;
    for (const s of stores) s.answer();
  }
  throw new Error('takes kept coming');
}

/** The value as it is now (a call, so an earlier assertion does not narrow it for good). */
const now = <T>(t: { value: T | undefined }): T | undefined => t.value;

function track<T>(p: Promise<T>): { value: T | undefined; error: unknown } {
  const t: { value: T | undefined; error: unknown } = { value: undefined, error: undefined };
  p.then(
    (v) => (t.value = v),
    (e: unknown) => (t.error = e),
  );
  return t;
}

void describe('decode admission over an async store', () => {
  void it('two processes never hold more than the window together, and all are served', async () => {
    const shared = new SharedCounts();
    const [s1, s2] = [shared.view(), shared.view()];
    const [a1, a2] = [decodeIn(s1), decodeIn(s2)];
    const claims = Array.from({ length: 3 }, () => [
      track(a1.claim(decodeWorker, 1)),
      track(a2.claim(decodeWorker, 1)),
    ]).flat();
    await answerAll(s1, s2);
    const granted = (): DecodeClaim[] =>
      claims.flatMap((c) => (c.value && !c.value.released ? [c.value] : []));
    assert.equal(shared.total(DKEY), 2, 'the window of 2 is full, not 2 per process');
    assert.equal(granted().length, 2);
    for (let served = 2; served < 6; served++) {
      granted()[0]?.release();
      await answerAll(s1, s2);
      assert.ok(shared.total(DKEY) <= 2);
    }
    await answerAll(s1, s2);
    assert.equal(
      claims.filter((c) => c.value).length,
      6,
      'every claim granted in the end (woken by the other process)',
    );
    for (const c of granted()) c.release();
    assert.equal(shared.total(DKEY), 0);
    assert.equal(a1.claimed(decodeWorker) + a2.claimed(decodeWorker), 0);
  });

  void it('a waiter asks one take at a time, and not at all while its view says full', async () => {
    const shared = new SharedCounts();
    const s = shared.view();
    const adm = decodeIn(s);
    const held = [track(adm.claim(decodeWorker, 2))];
    await answerAll(s);
    const asked = s.asked;
    held.push(track(adm.claim(decodeWorker, 1)), track(adm.claim(decodeWorker, 1)));
    await flush();
    assert.equal(s.asked, asked, 'the view knows the window is full: no round trip');
    held[0]?.value?.release();
    await flush();
    assert.equal(s.inFlight, 1, 'only the head asks');
    await answerAll(s);
    assert.ok(held[1]?.value && held[2]?.value);
    for (const c of held) c.value?.release();
    assert.equal(shared.total(DKEY), 0);
  });

  void it('a grant arriving for a waiter whose client left goes back to the store', async () => {
    const shared = new SharedCounts();
    const s = shared.view();
    const adm = decodeIn(s);
    const first = track(adm.claim(decodeWorker, 2));
    await answerAll(s);
    const client = new AbortController();
    const waiter = track(adm.claim(decodeWorker, 2, { signal: client.signal }));
    first.value?.release();
    await flush();
    assert.equal(s.inFlight, 1, "the waiter's take is in flight");
    client.abort(new Error('client left'));
    await answerAll(s);
    assert.ok(waiter.error instanceof Error);
    assert.equal(shared.total(DKEY), 0, 'the late grant was given back');
  });

  void it('a store whose limit is below the window refuses once, not in a loop', async () => {
    const shared = new SharedCounts();
    const clock = new ManualClock();
    const s = shared.view({ cap: 1 });
    const adm = decodeIn(s, clock);
    const first = track(adm.claim(decodeWorker, 1));
    await answerAll(s);
    const waiter = track(adm.claim(decodeWorker, 1));
    await answerAll(s);
    const asked = s.asked;
    for (let i = 0; i < 20; i++) await flush();
    assert.equal(s.inFlight, 0, 'refused: no take asked again without a wake-up');
    assert.equal(s.asked, asked);
    await clock.settle(STORE_POLL_MS);
    assert.equal(s.asked, asked + 1, 'the poll asks once');
    await answerAll(s);
    first.value?.release();
    await answerAll(s);
    const claim = waiter.value;
    assert.ok(claim, 'granted once the first claim gave its room back');
    claim.release();
    assert.equal(shared.total(DKEY), 0);
  });

  void it('a narrow arrival does not overtake a wide one asking before it', async () => {
    const shared = new SharedCounts();
    const [here, other] = [shared.view(), shared.view()];
    const wide4 = testWorker('w', { type: 'decode', labels: { max_num_seqs: '4' } });
    const key = decodeStoreKey(wide4.key);
    const elsewhere = track(decodeIn(other).claim(wide4, 1));
    await answerAll(other);
    const adm = decodeIn(here);
    const wide = track(adm.claim(wide4, 4));
    const narrow = track(adm.claim(wide4, 1));
    await answerAll(here);
    assert.ok(now(wide) === undefined, 'the wide claim waits: another process holds a room');
    assert.ok(now(narrow) === undefined, 'the narrow one behind it does not overtake it');
    elsewhere.value?.release();
    await answerAll(here);
    assert.ok(now(wide), 'the wide claim is granted first');
    assert.ok(now(narrow) === undefined);
    now(wide)?.release();
    await answerAll(here);
    assert.ok(now(narrow));
    now(narrow)?.release();
    assert.equal(shared.total(key), 0);
  });

  void it('a take in flight when the window label goes away is given back when it lands', async () => {
    const shared = new SharedCounts();
    const s = shared.view();
    const adm = decodeIn(s);
    const first = track(adm.claim(decodeWorker, 2));
    await answerAll(s);
    const waiter = track(adm.claim(decodeWorker, 1));
    await flush();
    first.value?.release();
    await flush();
    assert.equal(s.inFlight, 1, "the waiter's take is in flight");
    const unlabelled = testWorker('d', { type: 'decode' });
    const ungatedClaim = track(adm.claim(unlabelled, 1));
    await flush();
    assert.equal(waiter.value?.gated, false, 'no window any more: the waiter goes ungated');
    assert.equal(ungatedClaim.value?.gated, false);
    await answerAll(s);
    assert.equal(shared.total(DKEY), 0, 'the late ticket went back to the store');
  });

  void it('the poll finds freed rooms when the wake-up was lost', async () => {
    const shared = new SharedCounts();
    const clock = new ManualClock();
    const deaf = shared.view({ wakeUps: false });
    const other = shared.view();
    const here = decodeIn(deaf, clock);
    const there = decodeIn(other, clock);
    const held = track(there.claim(decodeWorker, 2));
    await answerAll(other);
    const waiter = track(here.claim(decodeWorker, 1));
    await answerAll(deaf);
    assert.equal(waiter.value, undefined, 'refused: the window is full');
    held.value?.release();
    await answerAll(deaf);
    assert.equal(waiter.value, undefined, 'no wake-up reached it');
    await clock.settle(STORE_POLL_MS);
    await answerAll(deaf);
    const claim = waiter.value as DecodeClaim | undefined;
    assert.ok(claim, 'the poll asked again');
    claim.release();
    assert.equal(shared.total(DKEY), 0);
  });
});

void describe('prefill admission over an async store', () => {
  const prefill = [testWorker('p1', { type: 'prefill' }), testWorker('p2', { type: 'prefill' })];
  const place = (hasRoom: (w: (typeof prefill)[number]) => boolean) => prefill.find(hasRoom);
  const admission = (store: DeferredStore): PrefillAdmission =>
    new PrefillAdmission({ limit: 1, queueSize: 10, queueTimeoutMs: 60_000, store });

  void it('a refused take places on the next worker; two processes share the limit', async () => {
    const shared = new SharedCounts();
    const [s1, s2] = [shared.view(), shared.view()];
    const [a1, a2] = [admission(s1), admission(s2)];
    const slots = [track(a1.acquire(place, never)), track(a2.acquire(place, never))];
    await answerAll(s1, s2);
    const got = slots.map((s) => s.value?.worker.key).sort();
    assert.deepEqual(
      got,
      prefill.map((w) => w.key),
      'the loser of p1 was placed on p2',
    );
    const third = track(a1.acquire(place, never));
    await answerAll(s1, s2);
    assert.equal(third.value, undefined, 'both workers are at their limit of 1');
    const second = slots[1]?.value as PrefillSlot;
    second.release();
    await answerAll(s1, s2);
    assert.ok(third.value, 'woken by the other process');
    for (const s of [slots[0], third]) s?.value?.release();
    assert.equal(
      prefill.reduce((n, w) => n + shared.total(prefillStoreKey(w.key)), 0),
      0,
    );
    a1.close();
    a2.close();
  });
});
