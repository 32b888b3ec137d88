import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TokenSink } from '../../src/engine.js';
import { FixedLatencyEngine, RateMeter } from '../../src/engine.js';

class RecordingSink implements TokenSink {
  steps: number[] = [];
  stepTimes: number[] = [];
  finished = false;
  readonly start = performance.now();
  readonly done: Promise<void>;
  private resolveDone: () => void = () => {};

  constructor(private readonly onStepHook?: (index: number) => void) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  onStep(index: number): void {
    this.steps.push(index);
    this.stepTimes.push(performance.now() - this.start);
    this.onStepHook?.(index);
  }

  onFinish(): void {
    this.finished = true;
    this.resolveDone();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

void describe('FixedLatencyEngine', () => {
  void it('emits maxTokens steps in order, then finishes and releases the slot', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 5, itlMs: 1 });
    const sink = new RecordingSink();
    engine.submit({ promptTokens: 10, choices: 2, maxTokens: 4 }, sink);
    assert.equal(engine.load().running, 2, 'running counts sequences: both choices');
    assert.equal(engine.load().usedTokens, 10);
    await sink.done;
    assert.deepEqual(sink.steps, [0, 1, 2, 3]);
    assert.equal(engine.load().running, 0);
    assert.ok(engine.load().genThroughput > 0);
  });

  void it('waits ttft for the first token and itl between tokens (lower bounds only)', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 30, itlMs: 10 });
    const sink = new RecordingSink();
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 5 }, sink);
    await sink.done;
    assert.ok((sink.stepTimes[0] ?? 0) >= 28, `first token at ${sink.stepTimes[0]}`);
    assert.ok((sink.stepTimes[4] ?? 0) >= 28 + 4 * 10 - 2, `last token at ${sink.stepTimes[4]}`);
  });

  void it('finishes without steps when maxTokens is 0', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1 });
    const sink = new RecordingSink();
    engine.submit({ promptTokens: 3, choices: 1, maxTokens: 0 }, sink);
    await sink.done;
    assert.deepEqual(sink.steps, []);
  });

  void it('stops at once when cancelled, including from inside onStep', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1 });
    const box: { handle?: { cancel(): void } } = {};
    const sink = new RecordingSink((i) => {
      if (i === 1) box.handle?.cancel();
    });
    box.handle = engine.submit({ promptTokens: 1, choices: 1, maxTokens: 50 }, sink);
    const idle = new RecordingSink();
    const idleHandle = engine.submit({ promptTokens: 1, choices: 1, maxTokens: 50 }, idle);
    idleHandle.cancel();
    idleHandle.cancel();
    await sleep(40);
    assert.deepEqual(sink.steps, [0, 1]);
    assert.equal(sink.finished, false);
    assert.deepEqual(idle.steps, []);
    assert.equal(engine.load().running, 0);
  });

  void it('cancels everything on shutdown', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 5, itlMs: 5 });
    const sinks = [new RecordingSink(), new RecordingSink()];
    for (const s of sinks) engine.submit({ promptTokens: 1, choices: 1, maxTokens: 10 }, s);
    engine.shutdown();
    await sleep(20);
    assert.equal(engine.load().running, 0);
    assert.ok(sinks.every((s) => s.steps.length === 0 && !s.finished));
  });
});

void describe('RateMeter', () => {
  void it('reports a positive rate that decays toward zero', async () => {
    const meter = new RateMeter(20);
    meter.add(100);
    const first = meter.rate();
    assert.ok(first > 0);
    await sleep(60);
    assert.ok(meter.rate() < first / 2);
  });

  void it('queues beyond its running window, FIFO, and admits the next when a slot frees', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1, maxRunning: 2 });
    const order: string[] = [];
    const sink = (name: string): RecordingSink => {
      const s = new RecordingSink((i) => {
        if (i === 0) order.push(`${name} first token`);
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
    await Promise.all([a.done, b.done, c.done]);
    assert.deepEqual(c.steps, [0, 1, 2]);
    assert.ok(order.indexOf('c first token') > order.indexOf('a finished'), order.join(', '));
    assert.deepEqual([engine.load().running, engine.load().waiting], [0, 0]);
  });

  void it('runs a request wider than the window alone, and holds later ones behind it', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1, maxRunning: 2 });
    const wide = new RecordingSink();
    const next = new RecordingSink();
    engine.submit({ promptTokens: 1, choices: 3, maxTokens: 2 }, wide);
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 2 }, next);
    assert.deepEqual([engine.load().running, engine.load().waiting], [3, 1]);
    await Promise.all([wide.done, next.done]);
    assert.deepEqual(next.steps, [0, 1]);
  });

  void it('drops a queued request that is cancelled before it runs', async () => {
    const engine = new FixedLatencyEngine({ ttftMs: 1, itlMs: 1, maxRunning: 1 });
    const first = new RecordingSink();
    const queued = new RecordingSink();
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 2 }, first);
    engine.submit({ promptTokens: 1, choices: 1, maxTokens: 2 }, queued).cancel();
    assert.equal(engine.load().waiting, 0);
    await first.done;
    await sleep(10);
    assert.deepEqual(queued.steps, []);
    assert.equal(engine.load().running, 0);
  });
});
