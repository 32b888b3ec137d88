// One gRPC Generate call in flight: bridges engine steps to the response stream and owns the
// call's outcome, so each stats counter moves once. Every step emits one token per unfinished
// choice (a chunk each when streaming); a choice that reaches its planned length gets its
// complete, and the call ends when the engine finishes, Abort arrives, the client cancels, a
// fault fires, a PD leg fails it or the worker closes. A PD leg (pd-leg.ts) wraps the engine run
// exactly as it does for an HTTP session: the session is its PdHost.
import type { ServerWritableStream } from '@grpc/grpc-js';
import { Metadata, status } from '@grpc/grpc-js';
import type { GenerationHandle, PromptShape, SimEngine, TokenSink } from './engine.js';
import type { ChoicePlan } from './grpc-answer.js';
import type { Counts, GrpcGenerate } from './grpc-wire.js';
import type { SimRuntime } from './options.js';
import type { PdHost, PdLeg } from './pd-leg.js';
import type { StatsRecorder } from './stats.js';
import { allTokens, tokenAt } from './grpc-answer.js';
import { chunkMessage, completeMessage } from './grpc-wire.js';

type Msg = Record<string, unknown>;
type Outcome = 'completed' | 'failed' | 'aborted' | 'dropped';

/** The status a servicer ends the call with for an engine error the HTTP surface answers so. */
const GRPC_CODE_FOR_HTTP: Readonly<Record<number, status>> = {
  400: status.INVALID_ARGUMENT,
  404: status.NOT_FOUND,
  409: status.ALREADY_EXISTS,
  503: status.UNAVAILABLE,
  504: status.DEADLINE_EXCEEDED,
};

export interface GrpcSessionContext {
  runtime: SimRuntime;
  engine: SimEngine;
  stats: StatsRecorder;
  /**
   * Fault: fail with `streamError` after this many tokens, or right after the headers; or
   * (`'malformed'`) send one message with neither chunk nor complete and end the call OK.
   */
  failAfter: number | 'head' | 'malformed' | undefined;
  streamError: () => { code: number; details: string };
  /** Called once when the call ends, whatever the outcome. */
  onEnd: (s: GrpcGenerateSession) => void;
  /** The PD leg this call plays, if any. */
  pd: PdLeg | undefined;
  /** The worker is shutting down. */
  closing: () => boolean;
  /** A cancelled call keeps running until it ends or is aborted (fault `grpcIgnoreCancel`). */
  ignoresCancel: boolean;
  /** Fault: after this many tokens the engine stops producing, the call left open. */
  stallAfter: number | undefined;
}

export class GrpcGenerateSession implements TokenSink, PdHost {
  private handle: GenerationHandle | undefined;
  private settled = false;
  /** The leg's onFinished ran; its vLLM handoff, if any, rides on every later complete. */
  private legFinished = false;
  private kvTransferParamsJson: string | undefined;
  /** Per choice: tokens emitted so far, and whether its complete went out. */
  private readonly emitted: number[];
  private readonly done: boolean[];
  private readonly maxTokens: number;
  /** The client cancelled; with `ignoresCancel` the sequence runs on, writing to nobody. */
  private clientGone = false;
  /** The stall fault fired: the engine produces nothing more for this call. */
  private stalled = false;

  constructor(
    private readonly call: ServerWritableStream<Msg, Msg>,
    private readonly ctx: GrpcSessionContext,
    readonly request: GrpcGenerate,
    private readonly plans: readonly ChoicePlan[],
    private readonly prompt: PromptShape | undefined,
  ) {
    this.emitted = plans.map(() => 0);
    this.done = plans.map(() => false);
    this.maxTokens = Math.max(0, ...plans.map((p) => p.length));
    ctx.stats.running++;
    call.once('cancelled', this.onCancelled);
  }

  get requestId(): string {
    return this.request.requestId;
  }

  /** Hang fault: hold the call open and silent until the client or an Abort ends it. */
  hold(): void {}

  run(): void {
    const fail = this.ctx.failAfter;
    if (fail === 'malformed') {
      this.call.write({});
      this.settle('dropped');
      this.call.end();
      return;
    }
    if (fail === 'head' || fail === 0) {
      // Headers first, so the client sees a started call that then fails.
      this.call.sendMetadata(new Metadata());
      this.dropByFault();
      return;
    }
    const pd = this.ctx.pd;
    if (pd === undefined) {
      this.proceed();
      return;
    }
    // No headers yet: the Python servicers send them with their first message, so a prefill whose
    // rendezvous expires (or a decode whose KV never lands) fails a call that never started, and
    // the gateway answers it as a leg that failed to start.
    if (pd.prepare !== undefined) pd.prepare(this);
    else this.proceed();
  }

  proceed(): void {
    if (this.settled || this.handle !== undefined) return;
    this.handle = this.ctx.engine.submit(
      {
        promptTokens: this.request.inputIds.length,
        choices: this.plans.length,
        maxTokens: this.maxTokens,
        prompts: this.prompt === undefined ? undefined : [this.prompt],
        remoteKv: this.ctx.pd?.remoteKv === true,
      },
      this,
    );
  }

  onAdmitted(): void {
    if (!this.settled) this.ctx.pd?.onAdmitted?.(this);
  }

  kvReady(): void {
    this.handle?.kvReady();
  }

  recompute(): void {
    this.handle?.recompute();
  }

  /** A PD leg ends the call with an engine error: its status mapped to gRPC, its message kept. */
  fail(httpStatus: number, message: string, type: string): void {
    if (this.settled) return;
    if (this.ctx.closing()) {
      // Shutdown tore down a peer connection first; the call is aborted, not failed.
      this.settle('aborted');
      return;
    }
    this.settle('failed');
    const code = GRPC_CODE_FOR_HTTP[httpStatus] ?? status.INTERNAL;
    this.call.emit('error', { code, details: `${message} (${type})` });
  }

  onStep(index: number): void {
    if (this.settled || this.stalled) return;
    const stall = this.ctx.stallAfter;
    if (stall !== undefined && index >= stall) {
      // Wedged: the sequence leaves the batch, the call stays open and silent.
      this.stalled = true;
      this.handle?.cancel();
      return;
    }
    // The last step produces the last tokens: hand the KV over before their completes go out.
    if (index + 1 >= this.maxTokens) this.finishLeg();
    for (let c = 0; c < this.plans.length; c++) {
      const plan = this.plans[c];
      if (plan === undefined || this.done[c] === true || index >= plan.length) continue;
      const token = tokenAt(plan, index);
      const emitted = (this.emitted[c] ?? 0) + 1;
      this.emitted[c] = emitted;
      if (this.request.stream) {
        this.write(chunkMessage(this.ctx.runtime, this.requestId, c, [token], this.counts(c)));
      }
      if (emitted === plan.length) this.complete(c, plan.finish, [token]);
    }
    const fail = this.ctx.failAfter;
    if (typeof fail === 'number' && index + 1 >= fail) this.dropByFault();
  }

  onFinish(): void {
    if (this.settled || this.stalled) return;
    this.finishLeg();
    if (this.settled) return;
    // Choices planned with no tokens (max_new_tokens 0) complete here.
    for (let c = 0; c < this.plans.length; c++) {
      const plan = this.plans[c];
      if (plan !== undefined && this.done[c] !== true) this.complete(c, plan.finish, []);
    }
    // A sequence whose client cancelled ran on for nobody: it ends as aborted, as it would have.
    this.settle(this.clientGone ? 'aborted' : 'completed');
    this.end();
  }

  /** Abort RPC: each unfinished choice completes with finish_reason 'abort', then the call ends. */
  abort(): void {
    if (this.settled) return;
    for (let c = 0; c < this.plans.length; c++) {
      if (this.done[c] !== true) this.complete(c, 'abort', []);
    }
    this.settle('aborted');
    this.end();
  }

  private end(): void {
    if (!this.clientGone) this.call.end();
  }

  private complete(c: number, finish: string, lastDelta: number[]): void {
    this.done[c] = true;
    const plan = this.plans[c];
    // A streamed complete repeats only the last delta; a non-streamed one carries every id
    // (grpc-mode.md, corrections 2).
    let ids = lastDelta;
    if (!this.request.stream && plan !== undefined) {
      ids = finish === 'abort' ? allTokens(plan).slice(0, this.emitted[c]) : allTokens(plan);
    }
    const msg = completeMessage(
      this.ctx.runtime,
      this.requestId,
      c,
      ids,
      finish,
      plan,
      this.counts(c),
      this.kvTransferParamsJson,
    );
    this.write(msg);
  }

  /** Once, when the engine produced every token: the leg's handoff (SGLang room, vLLM pin). */
  private finishLeg(): void {
    if (this.legFinished) return;
    this.legFinished = true;
    const params = this.ctx.pd?.onFinished?.()?.['kv_transfer_params'];
    // vLLM answers null params by leaving the field out.
    if (params !== undefined && params !== null) {
      this.kvTransferParamsJson = JSON.stringify(params);
    }
  }

  private counts(c: number): Counts {
    return {
      prompt: this.request.inputIds.length,
      completion: this.emitted[c] ?? 0,
      cached: this.handle?.cachedTokens() ?? 0,
    };
  }

  private write(msg: Msg): void {
    // No backpressure, as on the HTTP side: an engine does not wait for a slow reader.
    if (!this.settled && !this.clientGone) this.call.write(msg);
  }

  private dropByFault(): void {
    if (this.settled) return;
    this.settle('dropped');
    this.call.emit('error', this.ctx.streamError());
  }

  private readonly onCancelled = (): void => {
    this.clientGone = true;
    // A servicer that does not pass the cancel on leaves the sequence in the scheduler, holding
    // its seat, until it finishes or the gateway's Abort reaches it.
    if (!this.ctx.ignoresCancel || this.ctx.closing()) this.settle('aborted');
  };

  private settle(outcome: Outcome): void {
    if (this.settled) return;
    this.settled = true;
    this.handle?.cancel();
    const stats = this.ctx.stats;
    stats.running--;
    if (outcome === 'completed') stats.completed++;
    else if (outcome === 'failed') stats.failed++;
    else if (outcome === 'aborted') stats.aborted++;
    else stats.faultsFired++;
    // Rooms and pins are released on every exit but success, where the leg already handed over.
    if (outcome !== 'completed') this.ctx.pd?.onEnd?.();
    this.ctx.onEnd(this);
  }
}
