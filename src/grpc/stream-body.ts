/**
 * A streamed gRPC answer: reads the engine's outputs, runs each sample's stop decoder, and
 * pushes SSE frames (chat, completions or SGLang's `/generate`) with the client's backpressure.
 * A failure after the stream started is one error event then `[DONE]`, as SMG writes it; the
 * call is then disposed without `markCompleted`, so the engine is sent `Abort`.
 */
import { EngineCallError, type EngineOutput, type GenerateCall } from '../engine/types.js';
import { PushBody } from '../upstream/body-source.js';
import type { ChoiceState } from './choice.js';
import {
  chatPartsFrame,
  deltaFrame,
  DONE,
  finishFrame,
  generateFrame,
  roleFrame,
  sse,
  usageFrame,
  type ResponseMeta,
} from './formats.js';
import type { GrpcPlan } from './plan.js';

/** How a stream ended, for the answer's outcome lease. */
export type StreamOutcome = 'complete' | 'failed' | 'cancelled';

export interface StreamBodyOptions {
  call: GenerateCall;
  plan: GrpcPlan;
  meta: ResponseMeta;
  /** The state of sample `index`, made on its first output. */
  choice: (index: number) => ChoiceState;
  /** The prompt text, for completions with `echo`. */
  echoText: string;
  startTime: number;
  onEnd: (outcome: StreamOutcome, error?: unknown) => void;
}

export class GenerateStreamBody extends PushBody {
  readonly #o: StreamBodyOptions;
  readonly #choices = new Map<number, ChoiceState>();
  #resume: (() => void) | undefined;
  #cancelled = false;

  constructor(options: StreamBodyOptions) {
    super();
    this.#o = options;
    void this.#pump();
  }

  protected resumeProducer(): void {
    const r = this.#resume;
    this.#resume = undefined;
    r?.();
  }

  protected cancelProducer(): void {
    this.#cancelled = true;
    this.#o.call.dispose();
    this.resumeProducer();
  }

  /**
   * Pushes frames; returns a promise only when the client's socket is full (then resolved on
   * resume), so a token that fits costs no extra microtask.
   */
  #send(text: string): Promise<void> | undefined {
    if (text === '' || this.#cancelled || this.push(Buffer.from(text))) return undefined;
    return new Promise<void>((resolve) => {
      this.#resume = resolve;
    });
  }

  #state(index: number): ChoiceState {
    let c = this.#choices.get(index);
    if (c === undefined) {
      c = this.#o.choice(index);
      this.#choices.set(index, c);
    }
    return c;
  }

  async #pump(): Promise<void> {
    const { call, onEnd } = this.#o;
    try {
      for await (const out of call) {
        if (this.#cancelled) break;
        const paused = this.#send(this.#frames(out));
        if (paused !== undefined) await paused;
      }
      if (this.#cancelled) {
        onEnd('cancelled');
        return;
      }
      await this.#send(this.#closing());
      call.markCompleted();
      this.end();
      onEnd('complete');
    } catch (err) {
      if (this.#cancelled) {
        onEnd('cancelled');
        return;
      }
      call.dispose();
      const message =
        err instanceof EngineCallError
          ? `Stream error: ${err.details}`
          : `Stream error: ${String(err)}`;
      await this.#send(sse({ error: { message, type: 'internal_error' } }) + DONE);
      this.end();
      onEnd('failed', err);
    }
  }

  /** The frames one engine output adds. */
  #frames(out: EngineOutput): string {
    const { plan, meta } = this.#o;
    const c = this.#state(out.index);
    const wantLogprobs = plan.logprobs !== undefined;
    let frames = '';
    if (!c.opened) {
      c.opened = true;
      if (plan.kind === 'chat') frames += roleFrame(meta, c.index);
      else if (plan.kind === 'completion' && plan.echo)
        frames += deltaFrame('completion', meta, c, this.#o.echoText, c.logprobs.length, false);
    }
    const from = c.logprobs.length;
    const parsed = c.output;
    if (parsed !== undefined) {
      // Chat whose text is parsed: reasoning, content and tool calls as the parsers split them.
      if (out.kind === 'chunk')
        return frames + chatPartsFrame(meta, c, parsed.push(c.onChunk(out)), from, wantLogprobs);
      const last = parsed.pushLast(c.onComplete(out, true));
      return frames + chatPartsFrame(meta, c, last, from, wantLogprobs);
    }
    if (out.kind === 'chunk') {
      const text = c.onChunk(out);
      if (plan.kind === 'generate') return frames + generateFrame(meta, c, undefined);
      if (text !== '' || c.logprobs.length > from)
        frames += deltaFrame(plan.kind, meta, c, text, from, wantLogprobs);
      return frames;
    }
    const text = c.onComplete(out, true);
    if (plan.kind === 'generate') {
      return (
        frames +
        generateFrame(meta, c, { latencySecs: (performance.now() - this.#o.startTime) / 1000 })
      );
    }
    if (text !== '') frames += deltaFrame(plan.kind, meta, c, text, from, wantLogprobs);
    return frames;
  }

  #flushUncompleted(c: ChoiceState): string {
    if (c.completed) return '';
    const { plan, meta } = this.#o;
    const want = plan.logprobs !== undefined;
    const from = c.logprobs.length;
    const text = c.endWithoutComplete();
    const parsed = c.output;
    if (parsed === undefined) {
      return text === '' || plan.kind === 'generate'
        ? ''
        : deltaFrame(plan.kind, meta, c, text, from, want);
    }
    return chatPartsFrame(meta, c, parsed.pushLast(text), from, want);
  }

  /** After the engine's last output: finish frames per sample, usage if asked, `[DONE]`. */
  #closing(): string {
    const { plan, meta } = this.#o;
    if (plan.kind === 'generate') return DONE;
    const choices = [...this.#choices.values()].sort((a, b) => a.index - b.index);
    let frames = '';
    // A sample whose complete never came still gets the text its decoder and parsers hold.
    for (const c of choices) frames += this.#flushUncompleted(c);
    for (const c of choices) frames += finishFrame(plan.kind, meta, c);
    if (plan.includeUsage) frames += usageFrame(plan.kind, meta, choices);
    return frames + DONE;
  }
}
