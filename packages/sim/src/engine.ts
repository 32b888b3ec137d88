// The timing model behind a simulated worker. The HTTP layer only sees the `SimEngine` interface:
// it submits a generation and receives one `onStep` per decode step. Two engines sit behind it:
// `FixedLatencyEngine` (canned: fixed TTFT/ITL within a FIFO-queued running window; cheap, for
// measuring the gateway) and
// `BatchEngine` (realistic: continuous batching, batch-engine.ts). Engines decide *when* tokens
// appear, never *which* tokens: text comes from text.ts so it is identical across timing models.
import type { Clock, Timer } from '@switchyard/kit';
import { ScaledClock } from './clock.js';

/** One prompt of a request as the prefix cache sees it. */
export interface PromptShape {
  tokens: number;
  /** Chained keys of the prompt's full blocks (prefix-cache.ts `blockKeys`). */
  keys: readonly number[];
}

/** What the engine needs to know about a request to schedule it. */
export interface GenerationSpec {
  /** Prompt tokens over all items of the request (load accounting). */
  promptTokens: number;
  /** Sequences decoded in lockstep (n × batch items); each takes one slot of the window. */
  choices: number;
  /** Tokens to produce per choice; 0 finishes right after prefill. */
  maxTokens: number;
  /** Per-item prompt blocks for the prefix cache; absent = nothing cacheable. */
  prompts?: readonly PromptShape[] | undefined;
  /**
   * PD decode: the prompt's KV comes from a peer. Once admitted (slot and KV reserved) the engine
   * calls `onAdmitted` and waits for `kvReady()` (skip prefill) or `recompute()` (prefill here).
   */
  remoteKv?: boolean;
}

/** Receives the engine's progress for one request. Called from timers, never re-entrantly. */
export interface TokenSink {
  /** Decode step `index` (0-based) produced one token for every choice. */
  onStep(index: number): void;
  /** All tokens were produced; the engine has already released the request. */
  onFinish(): void;
  /** `remoteKv` only: the request now holds its slot; go and fetch the KV. */
  onAdmitted?(): void;
}

/** A submitted generation. */
export interface GenerationHandle {
  /** Stops the generation at once and releases its slot; no further sink calls. Idempotent. */
  cancel(): void;
  /** `remoteKv`: the KV arrived; decoding starts without computing the prompt. */
  kvReady(): void;
  /** `remoteKv`: no KV will come; compute the prompt here instead. */
  recompute(): void;
  /** Prompt tokens served from the prefix cache (0 until admitted, and on the canned engine). */
  cachedTokens(): number;
}

/** Snapshot for /v1/loads and /metrics. */
export interface EngineLoad {
  /** Sequences holding a slot of the running window (including those waiting for PD KV). */
  running: number;
  /** Sequences queued for a slot (SGLang decode: the pre-allocation queue). */
  waiting: number;
  /** Sequences admitted that wait for their KV from a PD peer (decode transfer queue). */
  awaitingKv: number;
  /** KV tokens in use: prompts, generated tokens and pinned cache blocks. */
  usedTokens: number;
  maxTotalTokens: number;
  /** Tokens per (simulated) second, exponentially weighted over about five seconds. */
  genThroughput: number;
  /** Prompt tokens of waiting requests that the prefix cache does not hold. */
  waitingUncachedTokens: number;
  /** Cached prompt tokens / prompt tokens over every admitted request so far. */
  cacheHitRate: number;
}

export interface SimEngine {
  submit(spec: GenerationSpec, sink: TokenSink): GenerationHandle;
  load(): EngineLoad;
  /** Multiplies every engine duration by `factor` (the slowdown fault); 1 = normal speed. */
  setSlowdown(factor: number): void;
  /** Holds `tokens` of KV outside any request (vLLM PD pins); returns the release function. */
  holdKv(tokens: number): () => void;
  /** Drops unpinned prefix-cache blocks. */
  flushCache(): void;
  /** Cancels every generation (worker shutdown). */
  shutdown(): void;
}

export interface FixedLatencyTiming {
  ttftMs: number;
  itlMs: number;
  /**
   * Running window in sequences (`--max-running-requests`); requests beyond it wait in a FIFO
   * queue, as in an engine's waiting queue. Unbounded when absent.
   */
  maxRunning?: number;
  /** Reported capacity; the canned engine does not enforce it. */
  maxTotalTokens?: number;
}

/**
 * Canned model: a request admitted to the running window gets its first token `ttftMs` after
 * admission (or after `kvReady`) and each later one `itlMs` after the previous, whatever the
 * load. Admission is FIFO; a request wider than the whole window runs alone rather than never
 * (the realistic engine's rule).
 */
export class FixedLatencyEngine implements SimEngine {
  private readonly running = new Set<FixedSequence>();
  private readonly queue: FixedSequence[] = [];
  private runningSlots = 0;
  private readonly meter: RateMeter;
  private held = 0;
  slowdown = 1;

  constructor(
    readonly timing: FixedLatencyTiming,
    readonly clock: Clock = new ScaledClock(1),
  ) {
    this.meter = new RateMeter(5_000, clock);
  }

  submit(spec: GenerationSpec, sink: TokenSink): GenerationHandle {
    const seq = new FixedSequence(this, spec, sink);
    this.queue.push(seq);
    this.admit();
    return seq;
  }

  private admit(): void {
    const window = this.timing.maxRunning ?? Number.POSITIVE_INFINITY;
    for (let seq = this.queue[0]; seq !== undefined; seq = this.queue[0]) {
      if (this.runningSlots > 0 && this.runningSlots + seq.spec.choices > window) return;
      this.queue.shift();
      this.runningSlots += seq.spec.choices;
      this.running.add(seq);
      seq.start();
    }
  }

  load(): EngineLoad {
    let usedTokens = this.held;
    let running = 0;
    let awaitingKv = 0;
    for (const seq of this.running) {
      usedTokens += seq.usedTokens();
      running += seq.spec.choices;
      if (seq.awaitingKv) awaitingKv += seq.spec.choices;
    }
    let waiting = 0;
    let waitingTokens = 0;
    for (const seq of this.queue) {
      waiting += seq.spec.choices;
      waitingTokens += seq.spec.promptTokens;
    }
    return {
      running,
      waiting,
      awaitingKv,
      usedTokens,
      maxTotalTokens: this.timing.maxTotalTokens ?? 524_288,
      genThroughput: this.meter.rate(),
      waitingUncachedTokens: waitingTokens,
      cacheHitRate: 0,
    };
  }

  setSlowdown(factor: number): void {
    this.slowdown = factor;
  }

  holdKv(tokens: number): () => void {
    this.held += tokens;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= tokens;
    };
  }

  flushCache(): void {}

  shutdown(): void {
    for (const seq of [...this.queue, ...this.running]) seq.cancel();
  }

  /** @internal called by sequences when they finish or are cancelled, queued or running. */
  release(seq: FixedSequence): void {
    if (this.running.delete(seq)) {
      this.runningSlots -= seq.spec.choices;
      this.admit();
      return;
    }
    const queued = this.queue.indexOf(seq);
    if (queued !== -1) this.queue.splice(queued, 1);
  }

  /** @internal called by sequences for every decode step. */
  produced(tokens: number): void {
    this.meter.add(tokens);
  }
}

class FixedSequence implements GenerationHandle {
  private timer: Timer | undefined;
  private emitted = 0;
  private startedAt = 0;
  private done = false;
  awaitingKv = false;

  constructor(
    private readonly engine: FixedLatencyEngine,
    readonly spec: GenerationSpec,
    private readonly sink: TokenSink,
  ) {}

  start(): void {
    if (this.spec.remoteKv === true) {
      // No window to wait for: admission is immediate, but never inline in submit().
      this.awaitingKv = true;
      this.timer = this.engine.clock.setTimer(0, this.admitted);
      return;
    }
    this.begin();
  }

  usedTokens(): number {
    return this.spec.promptTokens + this.emitted * this.spec.choices;
  }

  cachedTokens(): number {
    return 0;
  }

  kvReady(): void {
    if (!this.awaitingKv || this.done) return;
    this.awaitingKv = false;
    this.begin();
  }

  recompute(): void {
    this.kvReady();
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.engine.clock.clearTimer(this.timer);
    this.engine.release(this);
  }

  private begin(): void {
    const clock = this.engine.clock;
    this.startedAt = clock.now();
    this.timer = clock.setTimer(this.engine.timing.ttftMs * this.engine.slowdown, this.tick);
  }

  private readonly admitted = (): void => {
    if (!this.done) this.sink.onAdmitted?.();
  };

  // Bound once per sequence so that scheduling a token allocates no closure.
  private readonly tick = (): void => {
    if (this.done) return;
    if (this.emitted < this.spec.maxTokens) {
      const index = this.emitted++;
      this.engine.produced(this.spec.choices);
      this.sink.onStep(index);
      if (this.done) return; // the sink cancelled us (client gone, injected drop)
    }
    if (this.emitted >= this.spec.maxTokens) {
      this.done = true;
      this.engine.release(this);
      this.sink.onFinish();
      return;
    }
    // Deadlines are measured from the start rather than from the last tick, so timer lateness
    // does not accumulate over a long stream.
    const { ttftMs, itlMs } = this.engine.timing;
    const clock = this.engine.clock;
    const due = this.startedAt + (ttftMs + this.emitted * itlMs) * this.engine.slowdown;
    this.timer = clock.setTimer(Math.max(0, due - clock.now()), this.tick);
  };
}

/** Exponentially weighted event rate (events per second) with time constant `tauMs`. */
export class RateMeter {
  private value = 0;
  private last: number;

  constructor(
    private readonly tauMs: number,
    private readonly clock: Clock = new ScaledClock(1),
  ) {
    this.last = clock.now();
  }

  add(count: number): void {
    this.decay();
    this.value += (count * 1000) / this.tauMs;
  }

  rate(): number {
    this.decay();
    return this.value;
  }

  private decay(): void {
    const now = this.clock.now();
    this.value *= Math.exp(-(now - this.last) / this.tauMs);
    this.last = now;
  }
}
