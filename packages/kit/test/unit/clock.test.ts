// The one clock both the gateway and the simulator use: the manual clock's ordering and
// settling, sleep on any clock, and the system clock's timers that do not keep Node alive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, seededRandom, sleep, systemClock } from '../../src/index.js';

void describe('ManualClock', () => {
  void it('runs due timers in due order, ties in the order they were armed', () => {
    const clock = new ManualClock();
    const ran: string[] = [];
    clock.setTimer(20, () => ran.push('b'));
    clock.setTimer(10, () => ran.push('a'));
    clock.setTimer(20, () => ran.push('c'));
    clock.setTimer(31, () => ran.push('late'));
    clock.advance(30);
    assert.deepEqual(ran, ['a', 'b', 'c']);
    assert.equal(clock.now(), 30);
    assert.equal(clock.size, 1, 'the timer due after the window is still armed');
  });

  void it('runs a timer armed by a callback when it falls inside the window', () => {
    const clock = new ManualClock();
    const at: number[] = [];
    clock.setTimer(5, () => {
      at.push(clock.now());
      clock.setTimer(5, () => at.push(clock.now()));
    });
    clock.advance(10);
    assert.deepEqual(at, [5, 10]);
  });

  void it('never runs a cleared timer', () => {
    const clock = new ManualClock();
    let ran = false;
    const timer = clock.setTimer(1, () => (ran = true));
    clock.clearTimer(timer);
    clock.clearTimer(undefined);
    clock.advance(5);
    assert.equal(ran, false);
    assert.equal(clock.size, 0);
  });

  void it('settle lets a promise chain arm the next timer and runs it in the same window', async () => {
    const clock = new ManualClock();
    const at: number[] = [];
    const chain = async (): Promise<void> => {
      await sleep(10, undefined, clock);
      at.push(clock.now());
      await sleep(10, undefined, clock);
      at.push(clock.now());
    };
    const done = chain();
    clock.advance(20);
    // advance alone runs the first timer, but the second is armed only after a microtask.
    assert.deepEqual(at, []);
    await clock.settle(20);
    await done;
    assert.deepEqual(at, [20, 30]);
  });
});

void describe('sleep', () => {
  void it('rejects with the signal reason and leaves no timer armed', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const slept = sleep(1000, ac.signal, clock);
    assert.equal(clock.size, 1);
    ac.abort(new Error('client left'));
    await assert.rejects(slept, /client left/);
    assert.equal(clock.size, 0);
  });

  void it('rejects at once on an aborted signal', async () => {
    const clock = new ManualClock();
    await assert.rejects(sleep(1, AbortSignal.abort(new Error('gone')), clock), /gone/);
    assert.equal(clock.size, 0);
  });
});

void describe('systemClock', () => {
  void it('arms a timer that keeps the process alive unless told not to', () => {
    const kept = systemClock.setTimer(60_000, () => undefined) as unknown as NodeJS.Timeout;
    const background = systemClock.setTimer(60_000, () => undefined, {
      keepAlive: false,
    }) as unknown as NodeJS.Timeout;
    try {
      assert.equal(kept.hasRef(), true);
      assert.equal(background.hasRef(), false);
    } finally {
      systemClock.clearTimer(kept as never);
      systemClock.clearTimer(background as never);
    }
  });
});

void describe('seededRandom', () => {
  void it('repeats its stream for a seed and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = Array.from({ length: 100 }, () => a.next());
    assert.deepEqual(
      first,
      Array.from({ length: 100 }, () => b.next()),
    );
    assert.notEqual(first[0], c.next());
    for (const x of first) assert.ok(x >= 0 && x < 1);
  });
});
