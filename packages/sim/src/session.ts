// One inference request in flight: bridges engine steps to the HTTP response and owns the request's
// outcome (completed, failed, aborted by the client, or dropped by a fault), so every stats counter
// moves exactly once. Subclasses only decide what a step, the end and an error look like on the
// wire (OpenAI, SGLang's /generate, Anthropic Messages); a PD leg (pd-leg.ts) may wrap the engine
// run with a handshake.
import type { ServerResponse } from 'node:http';
import type { GenerationHandle, PromptShape, SimEngine, TokenSink } from './engine.js';
import type { PdHost, PdLeg } from './pd-leg.js';
import type { GenerationPlan, PromptItem } from './request-parse.js';
import type { ResponseMeta } from './responses.js';
import type { StatsRecorder } from './stats.js';
import { errorBody, SSE_DONE, sseError, sseEvent } from './responses.js';
import { OutputStream } from './text.js';

export interface SessionContext {
  res: ServerResponse;
  engine: SimEngine;
  stats: StatsRecorder;
  seed: number;
  meta: ResponseMeta;
  /** Fault: drop the connection after this many SSE events (streaming) or before the body. */
  dropAfterChunks: number | undefined;
  /** Fault: send a 200 head, then drop the connection before any body byte. */
  dropAfterHead: boolean;
  /** Realistic engine: OpenAI usage reports prompt_tokens_details.cached_tokens. */
  reportCached: boolean;
  /** The PD leg this request plays, if any. */
  pd: PdLeg | undefined;
  /** The worker is shutting down. */
  closing: () => boolean;
}

type Outcome = 'completed' | 'failed' | 'aborted' | 'dropped';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
/** A JSON head sent before its body exists: no content-length, so the body is chunked. */
const JSON_HEADERS = { 'content-type': 'application/json' };

export abstract class InferenceSession implements TokenSink, PdHost {
  /** One stream per output: items × n, item-major, matching OpenAI's choice index order. */
  protected readonly outputs: OutputStream[] = [];
  /** Each output's prompt item: its fixed answer, length and finish. */
  protected readonly outputItems: PromptItem[] = [];
  protected readonly startedAt = performance.now();
  protected settled = false;
  private handle: GenerationHandle | undefined;
  private events = 0;

  constructor(
    protected readonly ctx: SessionContext,
    protected readonly plan: GenerationPlan,
  ) {
    for (const item of plan.items) {
      for (let j = 0; j < plan.n; j++) {
        this.outputs.push(new OutputStream(ctx.seed, item.key, j, item.answer));
        this.outputItems.push(item);
      }
    }
    ctx.stats.running++;
    // 'close' without a finished response means the client went away: Node emits it as soon as
    // the socket closes, before or during streaming, which is what makes `aborted` exact.
    ctx.res.once('close', this.onClose);
  }

  /** Hang fault: keep the request open and unanswered until the client gives up. */
  hold(): void {}

  run(): void {
    if (this.ctx.dropAfterHead) {
      this.ctx.res.writeHead(200, this.plan.stream ? SSE_HEADERS : JSON_HEADERS);
      this.ctx.res.flushHeaders();
      this.drop();
      return;
    }
    if (this.plan.stream) {
      this.ctx.res.writeHead(200, SSE_HEADERS);
      this.ctx.res.flushHeaders();
      if (this.ctx.dropAfterChunks === 0) {
        this.drop();
        return;
      }
    }
    const pd = this.ctx.pd;
    if (pd?.prepare !== undefined) pd.prepare(this);
    else this.proceed();
  }

  proceed(): void {
    if (this.settled || this.handle !== undefined) return;
    const prompts: PromptShape[] = [];
    for (const item of this.plan.items) {
      if (item.keys !== undefined) prompts.push({ tokens: item.tokens, keys: item.keys });
    }
    this.handle = this.ctx.engine.submit(
      {
        promptTokens: this.plan.promptTokens,
        choices: this.outputs.length,
        maxTokens: this.plan.maxTokens,
        prompts: prompts.length === this.plan.items.length ? prompts : undefined,
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

  abstract onStep(index: number): void;

  onFinish(): void {
    if (this.settled) return;
    this.ctx.stats.cachedTokens += this.cachedTokens();
    const extra = this.ctx.pd?.onFinished?.();
    if (this.settled) return;
    if (this.plan.stream) {
      this.finishStream();
      if (this.settled) return;
      this.settle('completed');
      this.ctx.res.end(this.streamEnd());
      return;
    }
    if (this.ctx.dropAfterChunks !== undefined) {
      this.drop();
      return;
    }
    const json = JSON.stringify(this.body(extra));
    this.settle('completed');
    this.ctx.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    this.ctx.res.end(json);
  }

  fail(status: number, message: string, type: string): void {
    if (this.settled) return;
    const res = this.ctx.res;
    if (this.ctx.closing()) {
      // Shutdown tore down a peer connection first; the request is aborted, not failed.
      this.settle('aborted');
      res.destroy();
      return;
    }
    this.settle('failed');
    if (res.headersSent) {
      res.end(this.streamError(status, message, type));
      return;
    }
    const json = JSON.stringify(this.errorJson(status, message, type));
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
  }

  /** Streaming: the events written after the last step (finish chunks, usage). */
  protected abstract finishStream(): void;

  /** Non-streaming: the whole response body, with a PD leg's extra top-level fields. */
  protected abstract body(extra: Record<string, unknown> | undefined): unknown;

  /** Streaming: what ends a finished stream, not counted as an event (`[DONE]` on OpenAI). */
  protected streamEnd(): string {
    return SSE_DONE;
  }

  /** The JSON error body of a request that failed before its head was sent. */
  protected errorJson(status: number, message: string, type: string): unknown {
    return errorBody(status, message, type);
  }

  /** What ends a stream that failed mid-way (the engines' OpenAI servers: an error, `[DONE]`). */
  protected streamError(status: number, message: string, type: string): string {
    return sseError(status, message, type);
  }

  /**
   * The texts of the tokens output `c` produces when its answer is fixed (its answer cut to its
   * length, or repeated under ignore_eos), for the tool parser to read up front.
   */
  protected fixedTokens(c: number): string[] | undefined {
    const item = this.outputItems[c];
    const answer = item?.answer;
    if (item === undefined || answer === undefined) return undefined;
    const tokens: string[] = [];
    for (let i = 0; i < item.length; i++) tokens.push(answer[i % answer.length]?.text ?? '');
    return tokens;
  }

  /** Prompt tokens the engine served from its prefix cache. */
  protected cachedTokens(): number {
    return this.handle?.cachedTokens() ?? 0;
  }

  /** Writes one SSE data event; applies the drop fault once its count is reached. */
  protected writeEvent(json: string): void {
    this.writeFrame(sseEvent(json));
  }

  /** Writes one whole SSE event (its lines and the blank line); counts it for the drop fault. */
  protected writeFrame(frame: string): void {
    if (this.settled) return;
    // No backpressure: like a real engine, generation does not wait for a slow reader; the
    // socket buffers, and a vanished reader is caught by 'close'.
    this.ctx.res.write(frame);
    this.events++;
    if (this.ctx.dropAfterChunks !== undefined && this.events >= this.ctx.dropAfterChunks) {
      this.drop();
    }
  }

  /** Seconds since the request was accepted (SGLang's e2e_latency). */
  protected elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  private drop(): void {
    this.settle('dropped');
    const socket = this.ctx.res.socket;
    // Once a head is out (streaming, or the drop-after-head fault): let what was written reach
    // the client, then close without the terminating chunk, so the client sees a premature end.
    // Non-streaming before its head: nothing was written; close now.
    if (this.ctx.res.headersSent) socket?.destroySoon();
    else socket?.destroy();
  }

  private readonly onClose = (): void => {
    if (!this.ctx.res.writableFinished) this.settle('aborted');
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
    // Rooms and pins are released on every exit path but success, where the leg already did.
    if (outcome !== 'completed') this.ctx.pd?.onEnd?.();
  }
}
