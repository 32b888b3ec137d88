// The realistic engine on a manual clock: exact step timing, no sleeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BatchEngineConfig } from '../../src/batch-engine.js';
import { BatchEngine } from '../../src/batch-engine.js';
import { ManualClock } from '@switchyard/kit';
import type { GenerationHandle, GenerationSpec, TokenSink } from '../../src/engine.js';
import { blockKeys } from '../../src/prefix-cache.js';

const base: BatchEngineConfig = {
  maxRunning: 256,
  kvTokens: 524_288,
  blockSize: 16,
  prefixCache: true,
  prefillTps: 8000,
  prefillChunk: 2048,
  decodeBaseMs: 6,
  decodePerReqMs: 0.35,
};

class Sink implements TokenSink {
  times: number[] = [];
  finishedAt = -1;
  admittedAt = -1;
  constructor(private readonly clock: ManualClock) {}
  onStep(): void {
    this.times.push(this.clock.now());
  }
  onFinish(): void {
    this.finishedAt = this.clock.now();
  }
  onAdmitted(): void {
    this.admittedAt = this.clock.now();
  }
}

function setup(over: Partial<BatchEngineConfig> = {}) {
  const clock = new ManualClock();
  const engine = new BatchEngine({ ...base, ...over }, clock);
  const submit = (spec: Partial<GenerationSpec> = {}): [Sink, GenerationHandle] => {
    const sink = new Sink(clock);
    const handle = engine.submit({ promptTokens: 8, choices: 1, maxTokens: 4, ...spec }, sink);
    return [sink, handle];
  };
  return { clock, engine, submit };
}

const ids = (n: number, salt = 0): number[] => Array.from({ length: n }, (_, i) => i * 7 + salt);
const prompt = (n: number, salt = 0) => ({
  promptTokens: n,
  prompts: [{ tokens: n, keys: blockKeys(ids(n, salt), 16) }],
});

const gaps = (t: number[]): number[] => t.slice(1).map((v, i) => v - (t[i] ?? 0));
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-6, `${a} != ${b}`);

void describe('BatchEngine', () => {
  void it('inter-token latency is decode-base + per-req × batch', () => {
    const { clock, submit } = setup();
    const [alone] = submit({ maxTokens: 4 });
    clock.advance(1000);
    for (const g of gaps(alone.times)) close(g, 6 + 0.35 * 1);
    const sinks = Array.from({ length: 40 }, () => submit({ maxTokens: 4 })[0]);
    clock.advance(1000);
    // Every request is prefilled in the same first step, then decodes in a batch of 40.
    for (const s of sinks) for (const g of gaps(s.times)) close(g, 6 + 0.35 * 40);
    assert.ok((gaps(sinks[0]?.times ?? [])[0] ?? 0) > (gaps(alone.times)[0] ?? 0));
  });

  void it('prefill time follows prefill-tps and is chunked per step', () => {
    const { clock, submit } = setup({ prefixCache: false });
    const [s] = submit({ promptTokens: 5000, maxTokens: 1 });
    clock.advance(10_000);
    // 2048 + 2048 + 904 tokens at 8000 tok/s = 625 ms of prefill over three steps.
    close(s.times[0] ?? 0, 625);
  });

  void it('the window caps running sequences and queues the rest FIFO', () => {
    const { clock, engine, submit } = setup({ maxRunning: 2 });
    const sinks = Array.from({ length: 5 }, () => submit({ maxTokens: 3 })[0]);
    clock.advance(0);
    assert.deepEqual([engine.load().running, engine.load().waiting], [2, 3]);
    clock.advance(10_000);
    assert.ok(sinks.every((s) => s.finishedAt > 0));
    const firsts = sinks.map((s) => s.times[0] ?? 0);
    assert.deepEqual(
      [...firsts].sort((a, b) => a - b),
      firsts,
    );
    assert.ok((firsts[2] ?? 0) >= (sinks[0]?.finishedAt ?? 0), 'third starts after a slot frees');
    assert.deepEqual([engine.load().running, engine.load().waiting], [0, 0]);
  });

  void it('a repeated prefix is served from the cache, reports cached tokens and prefills faster', () => {
    const { clock, engine, submit } = setup();
    const [first, h1] = submit({ ...prompt(4008), maxTokens: 1 });
    clock.advance(10_000);
    const [second, h2] = submit({ ...prompt(4008), maxTokens: 1 });
    const t0 = clock.now();
    clock.advance(10_000);
    assert.equal(h1.cachedTokens(), 0);
    assert.equal(h2.cachedTokens(), 4000); // 250 full blocks of 16; the 8-token tail is not cached
    assert.ok((second.times[0] ?? 0) - t0 < (first.times[0] ?? 0) / 10);
    assert.ok(engine.load().cacheHitRate > 0.4);
  });

  void it('evicts least recently used blocks, leaves before their prefixes', () => {
    const { clock, submit } = setup({ kvTokens: 1100 });
    for (const salt of [1, 2, 3]) {
      submit({ ...prompt(512, salt), maxTokens: 1 }); // the third evicts 28 of prompt 1's 32 blocks
      clock.advance(1000);
    }
    const [, recent] = submit({ ...prompt(512, 3), maxTokens: 1 });
    clock.advance(1000);
    assert.equal(recent.cachedTokens(), 511, 'a full hit still computes the last token');
    const [, old] = submit({ ...prompt(512, 1), maxTokens: 1 });
    clock.advance(1000);
    assert.equal(old.cachedTokens(), 64, 'only the 4-block prefix of prompt 1 survived');
  });

  void it('queues on KV capacity and reports waiting uncached tokens', () => {
    const { clock, engine, submit } = setup({ kvTokens: 1000, prefixCache: false });
    submit({ promptTokens: 600, maxTokens: 100 });
    submit({ promptTokens: 600, maxTokens: 100 });
    clock.advance(0);
    const load = engine.load();
    assert.deepEqual([load.running, load.waiting, load.waitingUncachedTokens], [1, 1, 600]);
    clock.advance(100_000);
    assert.equal(engine.load().running, 0);
  });

  void it('remote KV: admitted into the window, then decodes without prefill or recomputes', () => {
    const { clock, engine, submit } = setup({ maxRunning: 1 });
    const [busy, busyHandle] = submit({ maxTokens: 1000 });
    const [remote, handle] = submit({ promptTokens: 8000, maxTokens: 2, remoteKv: true });
    clock.advance(50);
    assert.equal(remote.admittedAt, -1, 'pre-allocation waits for a slot');
    busyHandle.cancel();
    clock.advance(10); // admission happens at the next step boundary
    assert.ok(remote.admittedAt >= 0);
    assert.equal(engine.load().awaitingKv, 1);
    clock.advance(500);
    assert.equal(remote.times.length, 0, 'no token before the KV arrives');
    const t = clock.now();
    handle.kvReady();
    clock.advance(1000);
    close((remote.times[0] ?? 0) - t, 6.35); // one decode step, no prefill
    assert.ok(busy.finishedAt < 0);

    const [again, h2] = submit({ promptTokens: 8000, maxTokens: 1, remoteKv: true });
    clock.advance(0);
    const t2 = clock.now();
    h2.recompute();
    clock.advance(5000);
    close((again.times[0] ?? 0) - t2, 1000); // 8000 tokens at 8000 tok/s
  });

  void it('cancel frees the slot and held KV blocks admission until released', () => {
    const { clock, engine, submit } = setup({ kvTokens: 100, prefixCache: false });
    const release = engine.holdKv(90);
    const [s] = submit({ promptTokens: 20, maxTokens: 4 });
    clock.advance(10);
    assert.equal(engine.load().waiting, 1);
    release();
    clock.advance(1000);
    assert.ok(s.finishedAt > 0);
    const [, h] = submit({ maxTokens: 100 });
    clock.advance(20);
    h.cancel();
    h.cancel();
    assert.equal(engine.load().running, 0);
  });

  void it('slowdown multiplies step durations', () => {
    const { clock, engine, submit } = setup();
    engine.setSlowdown(3);
    const [s] = submit({ maxTokens: 3 });
    clock.advance(1000);
    for (const g of gaps(s.times)) close(g, 3 * 6.35);
  });
});
