/**
 * Engine `GenerateResponse` messages → `EngineOutput`. The three runtimes use the same field
 * names (keepCase objects), so one normaliser serves all; what differs is how counts are sent.
 * vLLM's chunks carry the *new* completion tokens (its servicer says "Rust accumulates") while
 * SGLang and TokenSpeed send running totals; the pipeline reads running totals from every one.
 */
import { MalformedEngineOutputError, type EngineOutput, type OutputLogprobs } from './types.js';

export interface WireLogprobs {
  token_logprobs?: number[];
  token_ids?: number[];
  top_logprobs?: { values?: number[]; token_ids?: number[] }[];
}

interface WireCounts {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  output_logprobs?: WireLogprobs;
  index?: number;
}

export interface WireChunk extends WireCounts {
  token_ids?: number[];
}

export interface WireComplete extends WireCounts {
  output_ids?: number[];
  finish_reason?: string;
  matched_stop?: string;
  matched_token_id?: number;
  matched_stop_str?: string;
  kv_transfer_params_json?: string;
}

/** A decoded GenerateResponse; `response` is proto-loader's oneof virtual field. */
export interface WireGenerateResponse {
  request_id?: string;
  response?: string;
  chunk?: WireChunk;
  complete?: WireComplete;
}

/** Running totals of one sample of a delta-counting (vLLM) stream. */
interface DeltaTotals {
  completion: number;
  sawChunk: boolean;
}

export function normaliseLogprobs(w: WireLogprobs | undefined): OutputLogprobs | undefined {
  if (w === undefined) return undefined;
  return {
    tokenLogprobs: w.token_logprobs ?? [],
    tokenIds: w.token_ids ?? [],
    top: (w.top_logprobs ?? []).map((t) => ({
      tokenIds: t.token_ids ?? [],
      logprobs: t.values ?? [],
    })),
  };
}

/** One per call: it holds the per-index totals of a delta-counting stream. */
export class OutputNormaliser {
  readonly #delta: boolean;
  readonly #totals = new Map<number, DeltaTotals>();

  /** `deltaCounts`: the engine sends per-chunk completion counts (vLLM). */
  constructor(deltaCounts: boolean) {
    this.#delta = deltaCounts;
  }

  normalise(message: unknown): EngineOutput {
    const msg = message as WireGenerateResponse | null | undefined;
    if (msg?.response === 'chunk' && typeof msg.chunk === 'object') return this.#chunk(msg.chunk);
    if (msg?.response === 'complete' && typeof msg.complete === 'object') {
      return this.#complete(msg.complete);
    }
    throw new MalformedEngineOutputError(
      'engine sent a GenerateResponse with neither chunk nor complete',
    );
  }

  #chunk(c: WireChunk): EngineOutput {
    const index = c.index ?? 0;
    let completion = c.completion_tokens ?? 0;
    if (this.#delta) {
      const t = this.#totalsOf(index);
      t.completion += completion;
      t.sawChunk = true;
      completion = t.completion;
    }
    return {
      kind: 'chunk',
      index,
      tokenIds: c.token_ids ?? [],
      // vLLM repeats the prompt and cached counts in full on every chunk; only completion
      // counts are deltas.
      promptTokens: c.prompt_tokens ?? 0,
      completionTokens: completion,
      cachedTokens: c.cached_tokens ?? 0,
      reasoningTokens: c.reasoning_tokens ?? 0,
      logprobs: normaliseLogprobs(c.output_logprobs),
    };
  }

  #complete(c: WireComplete): EngineOutput {
    const index = c.index ?? 0;
    let completion = c.completion_tokens ?? 0;
    if (this.#delta) {
      // A streamed vLLM complete repeats the last delta and its count; the total is what the
      // chunks added up to. Without a stream there were no chunks and the count is the whole.
      const t = this.#totals.get(index);
      if (t?.sawChunk === true) completion = t.completion;
    }
    let matchedStop: number | string | undefined;
    if (c.matched_stop === 'matched_token_id') matchedStop = c.matched_token_id;
    else if (c.matched_stop === 'matched_stop_str') matchedStop = c.matched_stop_str;
    return {
      kind: 'complete',
      index,
      outputIds: c.output_ids ?? [],
      finishReason: c.finish_reason ?? '',
      promptTokens: c.prompt_tokens ?? 0,
      completionTokens: completion,
      cachedTokens: c.cached_tokens ?? 0,
      reasoningTokens: c.reasoning_tokens ?? 0,
      matchedStop,
      logprobs: normaliseLogprobs(c.output_logprobs),
      kvTransferParamsJson: c.kv_transfer_params_json,
    };
  }

  #totalsOf(index: number): DeltaTotals {
    let t = this.#totals.get(index);
    if (t === undefined) {
      t = { completion: 0, sawChunk: false };
      this.#totals.set(index, t);
    }
    return t;
  }
}
