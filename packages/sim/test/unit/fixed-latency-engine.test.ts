// The canned engine on a manual clock: exact token times, no sleeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import type { TokenSink } from '../../src/engine.js';
import { FixedLatencyEngine, RateMeter } from '../../src/engine.js';

class RecordingSink implements TokenSink {
  steps: number[] = [];
  stepTimes: number[] = [];
  finished = false;
  readonly done: Promise<void>;
  private resolveDone: () => void = () => {};

  constructor(
    private readonly clock: ManualClock,
    private readonly onStepHook?: (index: number) => void,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  onStep(index: number): void {
    this.steps.push(index);
    this.stepTimes.push(this.clock.now());
    this.onStepHook?.(index);
  }

  onFinish(): void {
    this.finished = true;
    this.resolveDone();
  }
}

void describe('FixedLatencyEngine', () => {
  void it('emits maxTokens steps in order, then finishes and releases the slot', () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 5, itlMs: 1 }, clock);
    const sink = new RecordingSink(clock);
    engine.submit({ promptTokens: 10, choices: 2, maxTokens: 4 }, sink);
    assert.equal(engine.load().running, 2, 'running counts sequences: both choices');
    assert.equal(engine.load().usedTokens, 10);
    clock.advance(7);
    assert.equal(sink.finished, false);
    clock.advance(1);
    assert.equal(sink.finished, true, 'done at ttft 5 + 3 × itl 1');
    assert.deepEqual(sink.steps, [0, 1, 2, 3]);
    assert.equal(engine.load().running, 0);
    assert.ok(engine.load().genThroughput > 0);
  });

  void it('gives the first token at ttft and each next one itl later', () => {
    const clock = new ManualClock(1000);
    const engine = new FixedLatencyEngine({ ttftMs: 30, itlMs: 10 }, clock);
    const sink = new RecordingSink(clock);
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 5 }, sink);
    clock.advance(29);
    assert.deepEqual(sink.steps, []);
    clock.advance(41);
    assert.deepEqual(sink.stepTimes, [1030, 1040, 1050, 1060, 1070]);
    assert.equal(sink.finished, true);
  });

  void it('finishes without steps when maxTokens is 0', () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1 }, clock);
    const sink = new RecordingSink(clock);
    engine.submit({ promptTokens: 3, choices: 1, maxTokens: 0 }, sink);
    clock.advance(1);
    assert.equal(sink.finished, true);
    assert.deepEqual(sink.steps, []);
  });

  void it('stops at once when cancelled, including from inside onStep', () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1 }, clock);
    const box: { handle?: { cancel(): void } } = {};
    const sink = new RecordingSink(clock, (i) => {
      if (i === 1) box.handle?.cancel();
    });
    box.handle = engine.submit({ promptTokens: 1, choices: 1, maxTokens: 50 }, sink);
    const idle = new RecordingSink(clock);
    const idleHandle = engine.submit({ promptTokens: 1, choices: 1, maxTokens: 50 }, idle);
    idleHandle.cancel();
    idleHandle.cancel();
    clock.advance(100);
    assert.deepEqual(sink.steps, [0, 1]);
    assert.equal(sink.finished, false);
    assert.deepEqual(idle.steps, []);
    assert.equal(engine.load().running, 0);
    assert.equal(clock.size, 0, 'no timer left armed');
  });

  void it('cancels everything on shutdown', () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 5, itlMs: 5 }, clock);
    const sinks = [new RecordingSink(clock), new RecordingSink(clock)];
    for (const s of sinks) engine.submit({ promptTokens: 1, choices: 1, maxTokens: 10 }, s);
    engine.shutdown();
    assert.equal(clock.size, 0, 'no timer left armed');
    clock.advance(100);
    assert.equal(engine.load().running, 0);
    assert.ok(sinks.every((s) => s.steps.length === 0 && !s.finished));
  });
});

void describe('RateMeter', () => {
  void it('reports a positive rate that decays exponentially toward zero', () => {
    const clock = new ManualClock();
    const meter = new RateMeter(20, clock);
    meter.add(100);
    const first = meter.rate();
    assert.equal(first, (100 * 1000) / 20);
    clock.advance(60);
    // Three time constants later: e^-3 of it.
    assert.ok(Math.abs(meter.rate() - first * Math.exp(-3)) < 1e-9, String(meter.rate()));
  });

  void it('queues beyond its running window, FIFO, and admits the next when a slot frees', async () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1, maxRunning: 2 }, clock);
    const order: string[] = [];
    const sink = (name: string): RecordingSink => {
      const s = new RecordingSink(clock, (i) => {
        if (i === 0) order.push(`${name} first token at ${clock.now()}`);
      });
      void s.done.then(() => order.push(`${name} finished`));
      return s;
    };
    const [a, b, c] = [sink('a'), sink('b'), sink('c')];
    engine.submit({ promptTokens: 5, choices: 1, maxTokens: 3 }, a);
    engine.submit({ promptTokens: 5, choices: 1, maxTokens: 3 }, b);
    engine.submit({ promptTokens: 7, choices: 1, maxTokens: 3 }, c);
    const load = engine.load();
    assert.deepEqual(
      [load.running, load.waiting, load.waitingUncachedTokens, load.usedTokens],
      [2, 1, 7, 10],
    );
    await clock.settle(10);
    assert.ok([a, b, c].every((s) => s.finished));
    assert.deepEqual(c.steps, [0, 1, 2]);
    // a and b finish at 3 ms; c, admitted then, gets its first token 1 ms later.
    assert.deepEqual(order, [
      'a first token at 1',
      'b first token at 1',
      'a finished',
      'b finished',
      'c first token at 4',
      'c finished',
    ]);
    assert.deepEqual([engine.load().running, engine.load().waiting], [0, 0]);
  });

  void it('runs a request wider than the window alone, and holds later ones behind it', () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1, maxRunning: 2 }, clock);
    const wide = new RecordingSink(clock);
    const next = new RecordingSink(clock);
    engine.submit({ promptTokens: 1, choices: 3, maxTokens: 2 }, wide);
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 2 }, next);
    assert.deepEqual([engine.load().running, engine.load().waiting], [3, 1]);
    clock.advance(10);
    assert.ok(wide.finished && next.finished);
    assert.deepEqual(wide.stepTimes, [1, 2]);
    assert.deepEqual(next.stepTimes, [3, 4], 'admitted only when the wide one finished');
  });

  void it('drops a queued request that is cancelled before it runs', () => {
    const clock = new ManualClock();
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1, maxRunning: 1 }, clock);
    const first = new RecordingSink(clock);
    const queued = new RecordingSink(clock);
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 2 }, first);
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 2 }, queued).cancel();
    assert.equal(engine.load().waiting, 0);
    clock.advance(10);
    assert.equal(first.finished, true);
    assert.deepEqual(queued.steps, []);
    assert.equal(engine.load().running, 0);
    assert.equal(clock.size, 0);
  });
});
