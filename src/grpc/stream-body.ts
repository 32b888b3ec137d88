/**
 * A streamed gRPC answer: reads the engine's outputs, runs each sample's stop decoder through its
 * framer (OpenAI or Anthropic frames), and pushes the frames with the client's backpressure. A
 * failure after the stream started is the framer's failure frames; the call is then disposed
 * without `markCompleted`, so the engine is sent `Abort`.
 */
import { EngineCallError, type GenerateCall } from '../engine/types.js';
import { PushBody } from '../upstream/body-source.js';
import type { ChoiceState } from './choice.js';
import type { StreamFramer } from './stream-framer.js';

/** How a stream ended, for the answer's outcome lease. */
export type StreamOutcome = 'complete' | 'failed' | 'cancelled';

export interface StreamBodyOptions {
  call: GenerateCall;
  framer: StreamFramer;
  /** The state of sample `index`, made on its first output. */
  choice: (index: number) => ChoiceState;
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
        const paused = this.#send(this.#o.framer.frames(out, this.#state(out.index)));
        if (paused !== undefined) await paused;
      }
      if (this.#cancelled) {
        onEnd('cancelled');
        return;
      }
      const choices = [...this.#choices.values()].sort((a, b) => a.index - b.index);
      const closing = this.#o.framer.closing(choices);
      await this.#send(typeof closing === 'string' ? closing : await closing);
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
      await this.#send(this.#o.framer.failure(message));
      this.end();
      onEnd('failed', err);
    }
  }
}
