/**
 * The state of one sample (`index`) of a gRPC generation: its stop decoder, the text shown so
 * far, its token counts and how it finished. A stop string or stop token the gateway matched
 * itself pins `finish_reason: "stop"` and its `matched_stop`; a later `"length"` from the engine
 * does not override it, and tokens after a local stop are ignored (SGLang is sent no stop strings
 * and keeps generating until its own stop).
 */
import type { EngineChunk, EngineComplete, EngineOutput, OutputLogprobs } from '../engine/types.js';
import type { StopDecoder } from '../tokenizer/types.js';
import type { ChatDelta, ChatOutput, WireToolCall } from './chat-output.js';

/** One output token's logprob entry, in positions the client saw. */
export interface TokenLogprob {
  id: number;
  logprob: number;
  top: { id: number; logprob: number }[];
}

export class ChoiceState {
  text = '';
  finishReason: string | undefined;
  matchedStop: string | number | undefined;
  stoppedLocally = false;
  /** The role chunk (chat) or echo (completions) has gone out for this index. */
  opened = false;
  promptTokens = 0;
  completionTokens = 0;
  cachedTokens = 0;
  reasoningTokens = 0;
  /** The ids of the last chunk, for `/generate` frames. */
  lastIds: readonly number[] = [];
  readonly logprobs: TokenLogprob[] = [];
  /** Chat with a reasoning or tool parser, streamed: the incremental split of the text. */
  output: ChatOutput | undefined;
  /** Chat with a reasoning or tool parser, not streamed: the whole answer's split. */
  parsed: { reasoning: string; content: string; toolCalls: WireToolCall[] } | undefined;

  /**
   * The finish reason the client sees: a sample that stopped after making tool calls finished
   * with them; one cut by its length (a call may be cut with it) or aborted keeps that reason.
   */
  get clientFinishReason(): string {
    const reason = this.finishReason ?? 'stop';
    const calls = this.output?.calls ?? this.parsed?.toolCalls.length ?? 0;
    return calls > 0 && reason === 'stop' ? 'tool_calls' : reason;
  }

  /** The engine's complete for this sample arrived. */
  completed = false;

  /**
   * The stream ended without this sample's complete: the text its stop decoder still holds, so
   * nothing the engine sent is lost.
   */
  endWithoutComplete(): string {
    if (this.completed || this.stoppedLocally) return '';
    this.completed = true;
    const held = this.decoder.flush();
    this.text += held;
    return held;
  }

  constructor(
    readonly index: number,
    private readonly decoder: StopDecoder,
    private readonly wantLogprobs: boolean,
  ) {}

  /** Feeds a streamed chunk; returns the text it adds (possibly ''). */
  onChunk(chunk: EngineChunk): string {
    this.#counts(chunk);
    this.lastIds = chunk.tokenIds;
    if (this.stoppedLocally) return '';
    return this.#feed(chunk.tokenIds, chunk.logprobs);
  }

  /**
   * Ends the sample. In a stream the complete's ids are only a repeat of the last delta and are
   * not decoded again; without a stream they are every output id and are decoded here.
   */
  onComplete(complete: EngineComplete, streamed: boolean): string {
    this.completed = true;
    this.#counts(complete);
    let text = '';
    if (!streamed && !this.stoppedLocally)
      text += this.#feed(complete.outputIds, complete.logprobs);
    if (!this.stoppedLocally) {
      const held = this.decoder.flush();
      this.text += held;
      text += held;
      this.finishReason = complete.finishReason;
      this.matchedStop = complete.matchedStop;
    }
    return text;
  }

  /**
   * A streamed engine output fed to this sample: the text it adds, split by the sample's parsers
   * when it has them (`output`), else the plain text. The Anthropic and Responses framers frame it.
   */
  streamedDelta(out: EngineOutput): ChatDelta | string {
    const parsed = this.output;
    if (out.kind === 'chunk') {
      const text = this.onChunk(out);
      return parsed === undefined ? text : parsed.push(text);
    }
    const text = this.onComplete(out, true);
    return parsed === undefined ? text : parsed.pushLast(text);
  }

  /** The stream ended without this sample's complete: what its decoder and parsers still hold. */
  heldDelta(): ChatDelta | string {
    const text = this.endWithoutComplete();
    return this.output === undefined ? text : this.output.pushLast(text);
  }

  #counts(m: EngineChunk | EngineComplete): void {
    this.promptTokens = m.promptTokens;
    this.completionTokens = m.completionTokens;
    this.cachedTokens = m.cachedTokens;
    this.reasoningTokens = m.reasoningTokens;
  }

  #feed(ids: readonly number[], lp: OutputLogprobs | undefined): string {
    let out = '';
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      const step = this.decoder.push(id);
      if (step.kind === 'held') {
        this.#logprob(lp, i, id);
        continue;
      }
      out += step.text;
      if (step.kind === 'stopped') {
        this.stoppedLocally = true;
        this.finishReason = 'stop';
        this.matchedStop = step.matched;
        break;
      }
      this.#logprob(lp, i, id);
    }
    this.text += out;
    return out;
  }

  #logprob(lp: OutputLogprobs | undefined, i: number, id: number): void {
    if (!this.wantLogprobs || lp === undefined) return;
    const logprob = lp.tokenLogprobs[i];
    if (logprob === undefined) return;
    const top = lp.top[i];
    this.logprobs.push({
      id,
      logprob,
      top:
        top === undefined
          ? []
          : top.tokenIds.map((t, k) => ({ id: t, logprob: top.logprobs[k] ?? 0 })),
    });
  }
}

/** Usage over all samples, as SMG adds it up: prompt and cached are the max, the rest the sum. */
export function usageOf(choices: readonly ChoiceState[]): Record<string, unknown> {
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  let reasoning = 0;
  for (const c of choices) {
    prompt = Math.max(prompt, c.promptTokens);
    cached = Math.max(cached, c.cachedTokens);
    completion += c.completionTokens;
    reasoning += c.reasoningTokens;
  }
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  if (reasoning > 0) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}
