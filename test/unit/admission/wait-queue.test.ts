/**
 * The admission wait queue on a ManualClock: strict FIFO, head-only grants, deadline, abort,
 * failAll and close, and no timer left armed however a waiter leaves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, type Clock, type TimerOptions } from '@switchyard/kit';
import {
  WaitQueue,
  type LeaveReason,
  type WaitRequest,
} from '../../../src/admission/wait-queue.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

/** A pool of `free` units; a waiter asks for `need` of them. */
class Units {
  constructor(public free: number) {}
  take(need: number): (() => number) | undefined {
    if (this.free < need) return undefined;
    this.free -= need;
    return () => need;
  }
}

interface Tracked {
  state: 'pending' | 'granted' | 'failed';
  error: unknown;
  leave: { reason: LeaveReason; waitedMs: number } | undefined;
}

function setup(free = 0) {
  const clock = new ManualClock(5_000);
  const sizes: number[] = [];
  const queue = new WaitQueue<() => number>({ clock, onSizeChange: (n) => sizes.push(n) });
  const units = new Units(free);
  const order: string[] = [];
  const wait = (
    name: string,
    need: number,
    extra: Partial<WaitRequest<() => number>> = {},
  ): Tracked => {
    const t: Tracked = { state: 'pending', error: undefined, leave: undefined };
    queue
      .enqueue({
        tryGrant: () => units.take(need),
        deadlineMs: 1000,
        timeoutError: () => new Error(`${name} timed out`),
        onLeave: (reason, waitedMs) => (t.leave = { reason, waitedMs }),
        ...extra,
      })
      .then(
        () => {
          t.state = 'granted';
          order.push(name);
        },
        (err: unknown) => Object.assign(t, { state: 'failed', error: err }),
      );
    return t;
  };
  return { clock, queue, units, wait, order, sizes };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

void describe('WaitQueue', () => {
  void it('grants in arrival order', async () => {
    const { clock, queue, units, wait, order } = setup();
    const a = wait('a', 1);
    const b = wait('b', 1);
    const c = wait('c', 1);
    assert.equal(queue.size, 3);
    units.free = 3;
    queue.pump();
    await flush();
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(
      [a.leave?.reason, b.leave?.reason, c.leave?.reason],
      ['granted', 'granted', 'granted'],
    );
    assert.equal(queue.size, 0);
    assert.equal(clock.size, 0, 'every deadline is cleared on grant');
  });

  void it('is head-only: a later small request never overtakes a waiting large one', async () => {
    const { clock, queue, units, wait, order } = setup();
    wait('big', 3);
    const small = wait('small', 1);
    units.free = 2;
    queue.pump();
    await flush();
    assert.equal(small.state, 'pending', 'the small one waits behind the head');
    assert.equal(units.free, 2, 'the freed units are held for the head');
    units.free = 4;
    queue.pump();
    await flush();
    assert.deepEqual(order, ['big', 'small']);
    assert.equal(clock.size, 0);
  });

  void it('times a waiter out at its deadline, then offers the next head', async () => {
    const { clock, queue, units, wait, order } = setup(1);
    const big = wait('big', 2);
    const small = wait('small', 1, { deadlineMs: 5000 });
    clock.advance(999);
    await flush();
    assert.equal(big.state, 'pending');
    clock.advance(1);
    await flush();
    assert.equal(big.state, 'failed');
    assert.match(String(big.error), /big timed out/);
    assert.deepEqual(big.leave, { reason: 'timeout', waitedMs: 1000 });
    assert.deepEqual(order, ['small'], 'the waiter behind the expired head got the free unit');
    assert.equal(small.leave?.waitedMs, 1000);
    assert.equal(queue.size, 0);
    assert.equal(units.free, 0);
    assert.equal(clock.size, 0);
  });

  void it('takes an aborted waiter out at once, with the signal reason', async () => {
    const { clock, queue, units, wait, order } = setup(1);
    const ac = new AbortController();
    const big = wait('big', 2, { signal: ac.signal });
    const small = wait('small', 1);
    const reason = new Error('client gone');
    ac.abort(reason);
    await flush();
    assert.equal(big.state, 'failed');
    assert.equal(big.error, reason);
    assert.equal(big.leave?.reason, 'aborted');
    assert.equal(small.state, 'granted', 'the next head is offered the grant');
    assert.deepEqual(order, ['small']);
    assert.equal(units.free, 0);
    assert.equal(queue.size, 0);
    assert.equal(clock.size, 0);
  });

  void it('maps the abort reason through abortError, and refuses an aborted signal up front', async () => {
    const { clock, queue, wait } = setup();
    const ac = new AbortController();
    const t = wait('a', 1, { signal: ac.signal, abortError: () => new Error('left the queue') });
    ac.abort('not an error');
    await flush();
    assert.match(String(t.error), /left the queue/);
    const late = wait('late', 1, { signal: ac.signal });
    await flush();
    assert.equal(late.state, 'failed');
    assert.equal(late.leave, undefined, 'never queued');
    assert.equal(queue.size, 0);
    assert.equal(clock.size, 0);
  });

  void it('ignores an abort after the grant', async () => {
    const { clock, queue, units, wait } = setup(1);
    const ac = new AbortController();
    const t = wait('a', 1, { signal: ac.signal });
    queue.pump();
    ac.abort(new Error('too late'));
    await flush();
    assert.equal(t.state, 'granted');
    assert.equal(t.leave?.reason, 'granted');
    assert.equal(units.free, 0);
    assert.equal(clock.size, 0);
  });

  void it('fails a head whose tryGrant throws and offers the next one', async () => {
    const { clock, queue, units, wait, order } = setup(1);
    const miss = new Error('pinned worker left');
    const pinned = wait('pinned', 1, {
      tryGrant: () => {
        throw miss;
      },
    });
    wait('next', 1);
    queue.pump();
    await flush();
    assert.equal(pinned.error, miss);
    assert.equal(pinned.leave?.reason, 'failed');
    assert.deepEqual(order, ['next']);
    assert.equal(units.free, 0);
    assert.equal(clock.size, 0);
  });

  void it('failAll rejects every waiter with the error and clears their timers', async () => {
    const { clock, queue, wait, sizes } = setup();
    const ws = [wait('a', 1), wait('b', 1), wait('c', 1)];
    const err = new Error('worker removed');
    queue.failAll(err);
    await flush();
    assert.ok(ws.every((w) => w.state === 'failed' && w.error === err));
    assert.deepEqual(sizes, [1, 2, 3, 2, 1, 0]);
    assert.equal(clock.size, 0);
    // The queue stays open.
    const d = wait('d', 1);
    assert.equal(queue.size, 1);
    queue.failAll(err);
    await flush();
    assert.equal(d.state, 'failed');
  });

  void it('close fails waiters and later arrivals with a final shutting_down', async () => {
    const { clock, queue, wait } = setup();
    const a = wait('a', 1);
    queue.close();
    const b = wait('b', 1);
    await flush();
    for (const t of [a, b]) {
      assert.ok(t.error instanceof GatewayError, String(t.error));
      assert.equal(t.error.code, 'shutting_down');
      assert.equal(t.error.retryable, false);
    }
    assert.equal(queue.size, 0);
    assert.equal(clock.size, 0);
  });

  void it('arms deadlines that do not keep the process alive', () => {
    const seen: (TimerOptions | undefined)[] = [];
    const inner = new ManualClock();
    const clock: Clock = {
      now: () => inner.now(),
      setTimer: (ms, fn, options) => {
        seen.push(options);
        return inner.setTimer(ms, fn);
      },
      clearTimer: (t) => inner.clearTimer(t),
    };
    const queue = new WaitQueue<number>({ clock });
    void queue
      .enqueue({ tryGrant: () => undefined, deadlineMs: 10, timeoutError: () => new Error('t') })
      .catch(() => undefined);
    assert.deepEqual(seen, [{ keepAlive: false }]);
    queue.failAll(new Error('done'));
    assert.equal(inner.size, 0);
  });
});
