// The timing model behind a simulated worker. The HTTP layer only sees the `SimEngine` interface:
// it submits a generation and receives one `onStep` per decode step, so a later continuous-batching
// engine (running window, prefill cost, batch-dependent ITL) can replace `FixedLatencyEngine`
// without touching how responses are written. Engines decide *when* tokens appear, never *which*
// tokens: text comes from text.ts so that it stays identical across timing models.

/** What the engine needs to know about a request to schedule it. */
export interface GenerationSpec {
  /** Prompt tokens over all items of the request (load accounting). */
  promptTokens: number;
  /** Sequences decoded in lockstep (n × batch items). */
  choices: number;
  /** Tokens to produce per choice; 0 finishes right after prefill. */
  maxTokens: number;
}

/** Receives the engine's progress for one request. Called from timers, never re-entrantly. */
export interface TokenSink {
  /** Decode step `index` (0-based) produced one token for every choice. */
  onStep(index: number): void;
  /** All tokens were produced; the engine has already released the request. */
  onFinish(): void;
}

/** A submitted generation. */
export interface GenerationHandle {
  /** Stops the generation at once and releases its slot; no further sink calls. Idempotent. */
  cancel(): void;
}

/** Snapshot for /v1/loads and /metrics. */
export interface EngineLoad {
  running: number;
  waiting: number;
  /** Prompt plus generated tokens of running requests (stand-in for KV usage). */
  usedTokens: number;
  /** Tokens per second, exponentially weighted over about five seconds. */
  genThroughput: number;
}

export interface SimEngine {
  submit(spec: GenerationSpec, sink: TokenSink): GenerationHandle;
  load(): EngineLoad;
  /** Cancels every running generation (worker shutdown). */
  shutdown(): void;
}

export interface FixedLatencyTiming {
  ttftMs: number;
  itlMs: number;
}

/**
 * v1 model: every request runs at once (no queue), its first token arrives `ttftMs` after submit
 * and each later one `itlMs` after the previous, independent of load.
 */
export class FixedLatencyEngine implements SimEngine {
  private readonly running = new Set<FixedSequence>();
  private readonly meter = new RateMeter(5_000);

  constructor(readonly timing: FixedLatencyTiming) {}

  submit(spec: GenerationSpec, sink: TokenSink): GenerationHandle {
    const seq = new FixedSequence(this, spec, sink);
    this.running.add(seq);
    seq.start();
    return seq;
  }

  load(): EngineLoad {
    let usedTokens = 0;
    for (const seq of this.running) usedTokens += seq.usedTokens();
    return { running: this.running.size, waiting: 0, usedTokens, genThroughput: this.meter.rate() };
  }

  shutdown(): void {
    for (const seq of [...this.running]) seq.cancel();
  }

  /** @internal called by sequences. */
  release(seq: FixedSequence): void {
    this.running.delete(seq);
  }

  /** @internal called by sequences for every decode step. */
  produced(tokens: number): void {
    this.meter.add(tokens);
  }
}

class FixedSequence implements GenerationHandle {
  private timer: NodeJS.Timeout | undefined;
  private emitted = 0;
  private startedAt = 0;
  private done = false;

  constructor(
    private readonly engine: FixedLatencyEngine,
    private readonly spec: GenerationSpec,
    private readonly sink: TokenSink,
  ) {}

  start(): void {
    this.startedAt = performance.now();
    this.timer = setTimeout(this.tick, this.engine.timing.ttftMs);
  }

  usedTokens(): number {
    return this.spec.promptTokens + this.emitted * this.spec.choices;
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.engine.release(this);
  }

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
    const due = this.startedAt + ttftMs + this.emitted * itlMs;
    this.timer = setTimeout(this.tick, Math.max(0, due - performance.now()));
  };
}

/** Exponentially weighted event rate (events per second) with time constant `tauMs`. */
export class RateMeter {
  private value = 0;
  private last = performance.now();

  constructor(private readonly tauMs: number) {}

  add(count: number): void {
    this.decay();
    this.value += (count * 1000) / this.tauMs;
  }

  rate(): number {
    this.decay();
    return this.value;
  }

  private decay(): void {
    const now = performance.now();
    this.value *= Math.exp(-(now - this.last) / this.tauMs);
    this.last = now;
  }
}
