// Realistic engine: one step loop with continuous batching, modelled on SGLang/vLLM schedulers.
// Each step (1) admits waiting requests FIFO while the running window and the KV pool allow,
// (2) runs up to `prefillChunk` uncached prompt tokens of prefilling requests plus one token for
// every decoding sequence, and lasts
//     prefillTokens / prefillTps  +  (decodeBaseMs + decodePerReqMs × decodingSequences)
// so prefill cost grows with uncached tokens and inter-token latency with the batch.
import type { Clock, Timer } from '@switchyard/kit';
import type {
  EngineLoad,
  GenerationHandle,
  GenerationSpec,
  SimEngine,
  TokenSink,
} from './engine.js';
import type { KvAllocation } from './kv-pool.js';
import { RateMeter } from './engine.js';
import { KvPool } from './kv-pool.js';

export interface BatchEngineConfig {
  /** Running window in sequences (SGLang --max-running-requests, vLLM --max-num-seqs). */
  maxRunning: number;
  /** KV pool size in tokens. */
  kvTokens: number;
  blockSize: number;
  prefixCache: boolean;
  /** Prefill throughput in tokens per second. */
  prefillTps: number;
  /** Most prompt tokens prefilled in one step (chunked prefill). */
  prefillChunk: number;
  decodeBaseMs: number;
  decodePerReqMs: number;
  /**
   * How far (simulated ms) the loop may fall behind the clock and still run overdue steps back
   * to back. Timers fire late by up to a millisecond or so, which at small time scales is many
   * simulated steps, so some catch-up keeps simulated time honest; beyond this bound a stalled
   * host becomes lost time (a slower engine) instead of a burst of tokens. Default 1000.
   */
  maxLagMs?: number;
}

type Phase = 'waiting' | 'kv' | 'prefill' | 'decode' | 'done';

interface StepPlan {
  prefill: [BatchRequest, number][];
  decode: BatchRequest[];
}

// Steps completed inline when timers fire late, before yielding to the event loop.
const MAX_INLINE_STEPS = 256;

class BatchRequest implements GenerationHandle {
  phase: Phase = 'waiting';
  kv: KvAllocation | undefined;
  prefillLeft = 0;
  emitted = 0;

  constructor(
    private readonly engine: BatchEngine,
    readonly spec: GenerationSpec,
    readonly sink: TokenSink,
  ) {}

  cancel(): void {
    this.engine.cancel(this);
  }

  kvReady(): void {
    this.engine.remoteKvDone(this, false);
  }

  recompute(): void {
    this.engine.remoteKvDone(this, true);
  }

  cachedTokens(): number {
    return this.kv?.cached ?? 0;
  }
}

export class BatchEngine implements SimEngine {
  private readonly pool: KvPool;
  private readonly meter: RateMeter;
  private readonly running = new Set<BatchRequest>();
  private waiting: BatchRequest[] = [];
  private head = 0;
  private waitingSlots = 0;
  private runningSlots = 0;
  private slowdown = 1;
  private current: StepPlan | undefined;
  private timer: Timer | undefined;
  private inLoop = false;
  /** Simulated time at which the current (or last) step ends. */
  private vt = 0;

  constructor(
    readonly config: BatchEngineConfig,
    private readonly clock: Clock,
  ) {
    this.pool = new KvPool(config.kvTokens, config.blockSize, config.prefixCache);
    this.meter = new RateMeter(5_000, clock);
  }

  submit(spec: GenerationSpec, sink: TokenSink): GenerationHandle {
    const req = new BatchRequest(this, spec, sink);
    this.waiting.push(req);
    this.waitingSlots += spec.choices;
    this.kick();
    return req;
  }

  load(): EngineLoad {
    let privateInUse = 0;
    let awaitingKv = 0;
    for (const r of this.running) {
      privateInUse += (r.kv?.promptPrivate ?? 0) + r.emitted * r.spec.choices;
      if (r.phase === 'kv') awaitingKv += r.spec.choices;
    }
    let waitingUncachedTokens = 0;
    for (let i = this.head; i < this.waiting.length; i++) {
      const r = this.waiting[i];
      if (r === undefined || r.phase === 'done') continue;
      waitingUncachedTokens += r.spec.promptTokens - this.pool.peekCached(r.spec);
    }
    return {
      running: this.runningSlots,
      waiting: this.waitingSlots,
      awaitingKv,
      usedTokens: this.pool.usedTokens(privateInUse),
      maxTotalTokens: this.config.kvTokens,
      genThroughput: this.meter.rate(),
      waitingUncachedTokens,
      cacheHitRate: this.pool.hitRate(),
    };
  }

  setSlowdown(factor: number): void {
    this.slowdown = factor;
  }

  holdKv(tokens: number): () => void {
    return this.pool.hold(tokens, () => this.kick());
  }

  flushCache(): void {
    this.pool.flush();
  }

  shutdown(): void {
    for (const r of [...this.running]) r.cancel();
    for (let i = this.head; i < this.waiting.length; i++) this.waiting[i]?.cancel();
    this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.current = undefined;
  }

  /** @internal */
  cancel(r: BatchRequest): void {
    if (r.phase === 'done') return;
    if (r.phase === 'waiting') {
      r.phase = 'done';
      this.waitingSlots -= r.spec.choices;
      return;
    }
    this.release(r);
  }

  /** @internal */
  remoteKvDone(r: BatchRequest, recompute: boolean): void {
    if (r.phase !== 'kv') return;
    if (recompute) {
      r.phase = 'prefill';
      r.prefillLeft = Math.max(1, r.spec.promptTokens);
    } else {
      r.phase = 'decode';
    }
    this.kick();
  }

  private kick(): void {
    if (this.inLoop || this.timer !== undefined) return;
    this.timer = this.clock.setTimer(0, this.loop);
  }

  private readonly loop = (): void => {
    this.timer = undefined;
    this.inLoop = true;
    try {
      for (let i = 0; i < MAX_INLINE_STEPS; i++) {
        const now = this.clock.now();
        let chained = false;
        if (this.current !== undefined) {
          if (this.vt > now) {
            this.timer = this.clock.setTimer(this.vt - now, this.loop);
            return;
          }
          const done = this.current;
          this.current = undefined;
          this.complete(done);
          chained = true;
        }
        const plan = this.plan();
        if (plan === undefined) return;
        // Back-to-back steps start where the previous one ended, so late timers do not slow the
        // simulated engine down; an idle engine (or one far behind) starts from the clock.
        const maxLag = this.config.maxLagMs ?? 1_000;
        const start = !chained || this.vt < now - maxLag ? Math.max(this.vt, now) : this.vt;
        this.vt = start + this.duration(plan);
        this.current = plan;
      }
      this.timer = this.clock.setTimer(0, this.loop);
    } finally {
      this.inLoop = false;
    }
  };

  private duration(plan: StepPlan): number {
    const c = this.config;
    let prefillTokens = 0;
    for (const [, take] of plan.prefill) prefillTokens += take;
    let batch = 0;
    for (const r of plan.decode) batch += r.spec.choices;
    const decodeMs = batch > 0 ? c.decodeBaseMs + c.decodePerReqMs * batch : 0;
    return ((prefillTokens * 1000) / c.prefillTps + decodeMs) * this.slowdown;
  }

  private plan(): StepPlan | undefined {
    this.admit();
    const prefill: [BatchRequest, number][] = [];
    const decode: BatchRequest[] = [];
    let budget = this.config.prefillChunk;
    for (const r of this.running) {
      if (r.phase === 'decode') decode.push(r);
      else if (r.phase === 'prefill' && budget > 0) {
        const take = Math.min(r.prefillLeft, budget);
        prefill.push([r, take]);
        budget -= take;
      }
    }
    return prefill.length === 0 && decode.length === 0 ? undefined : { prefill, decode };
  }

  private complete(plan: StepPlan): void {
    for (const [r, take] of plan.prefill) {
      if (r.phase !== 'prefill') continue;
      r.prefillLeft -= take;
      if (r.prefillLeft > 0) continue;
      if (r.kv !== undefined) this.pool.markComputed(r.kv);
      // The prefill forward pass samples the first token.
      r.phase = 'decode';
      this.emit(r);
    }
    for (const r of plan.decode) if (r.phase === 'decode') this.emit(r);
  }

  private emit(r: BatchRequest): void {
    if (r.emitted < r.spec.maxTokens) {
      const index = r.emitted++;
      this.meter.add(r.spec.choices);
      r.sink.onStep(index);
      if (r.phase === 'done') return; // the sink cancelled it
    }
    if (r.emitted >= r.spec.maxTokens) {
      this.release(r);
      r.sink.onFinish();
    }
  }

  private release(r: BatchRequest): void {
    r.phase = 'done';
    this.running.delete(r);
    this.runningSlots -= r.spec.choices;
    if (r.kv !== undefined) this.pool.free(r.kv);
    this.kick();
  }

  private admit(): void {
    while (this.head < this.waiting.length) {
      const r = this.waiting[this.head];
      if (r === undefined || r.phase === 'done') {
        this.head++;
        continue;
      }
      const choices = r.spec.choices;
      // A request wider than the whole window runs alone rather than never.
      const alone = this.runningSlots === 0;
      if (!alone && this.runningSlots + choices > this.config.maxRunning) break;
      const kv = this.pool.allocate(r.spec, alone);
      if (kv === undefined) break;
      this.head++;
      this.waitingSlots -= choices;
      r.kv = kv;
      this.runningSlots += choices;
      this.running.add(r);
      if (r.spec.remoteKv === true) {
        r.phase = 'kv';
        r.sink.onAdmitted?.();
      } else {
        r.phase = 'prefill';
        r.prefillLeft = Math.max(1, r.spec.promptTokens - kv.cached);
      }
    }
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
  }
}
