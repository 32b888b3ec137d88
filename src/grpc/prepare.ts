/**
 * Preparation: the model's tokenizer, the rendered chat prompt and its token ids (encoded
 * without special tokens after a template, which already wrote BOS and the role markers), and
 * the per-sample stop decoder configuration. Done once per request, before the first worker is
 * chosen; retries reuse it.
 */
import type { SamplingInput } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import {
  ChatTemplateError,
  type ModelTokenizer,
  type StopDecoderConfig,
} from '../tokenizer/types.js';
import type { GrpcPlan } from './plan.js';

export interface PreparedPrompt {
  tokenizer: ModelTokenizer;
  inputIds: readonly number[];
  /** The rendered prompt (or the prompt text), sent as `original_text` and echoed. */
  text: string;
}

/** Seconds a client is told to wait for a tokenizer that is still loading. */
const TOKENIZER_RETRY_AFTER_SECS = 1;

/**
 * SMG answers 500 `tokenizer_not_found`, which its retry loop then retries while the tokenizer
 * loads; a 503 with Retry-After, not retried, tells the client the truth at once (docs/compat.md).
 */
export function tokenizerNotFound(model: string): GatewayError {
  return new GatewayError('tokenizer_not_found', `Tokenizer not found for model: ${model}`, {
    retryable: false,
    headers: { 'retry-after': String(TOKENIZER_RETRY_AFTER_SECS) },
  });
}

export function preparePrompt(plan: GrpcPlan, tokenizer: ModelTokenizer): PreparedPrompt {
  const prompt = plan.prompt;
  switch (prompt.kind) {
    case 'ids':
      checkTokenIds(prompt.ids, tokenizer);
      return { tokenizer, inputIds: prompt.ids, text: tokenizer.decode(prompt.ids, false) };
    case 'text':
      return { tokenizer, inputIds: tokenizer.encode(prompt.text, true), text: prompt.text };
    case 'chat': {
      let text: string;
      try {
        text = tokenizer.renderChat(prompt.input);
      } catch (err) {
        if (err instanceof ChatTemplateError)
          throw new GatewayError('process_messages_failed', err.message);
        throw err;
      }
      return { tokenizer, inputIds: tokenizer.encode(text, false), text };
    }
  }
}

/**
 * Token ids the client sent must be ids of the model's vocabulary: an engine given one past it
 * answers anything from INVALID_ARGUMENT to a device assertion.
 */
function checkTokenIds(ids: readonly number[], tokenizer: ModelTokenizer): void {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= tokenizer.vocabSize) {
      throw new GatewayError(
        'invalid_request_parameters',
        `Token id ${id} is not in the model's vocabulary of ${tokenizer.vocabSize} tokens`,
      );
    }
  }
}

/**
 * A prompt the model cannot hold is refused before it reaches the engine: the worker's
 * `max_req_input_len` label when it has one, else `max_context_length` (both from GetModelInfo).
 */
export function checkContextLength(
  prepared: PreparedPrompt,
  labels: Readonly<Record<string, string>>,
): void {
  const limit = Number(labels.max_req_input_len ?? labels.max_context_length ?? NaN);
  if (Number.isFinite(limit) && limit > 0 && prepared.inputIds.length > limit) {
    throw new GatewayError(
      'context_length_exceeded',
      `The prompt is ${prepared.inputIds.length} tokens, over the model's limit of ${limit}`,
    );
  }
}

/**
 * The stop decoder of each sample: the request's stop strings hidden unless `no_stop_trim`, the
 * tokenizer's EOS ids hidden unless `ignore_eos`, and the request's stop token ids.
 */
export function stopConfig(sampling: SamplingInput, tokenizer: ModelTokenizer): StopDecoderConfig {
  const eos = sampling.ignoreEos ? [] : tokenizer.eosTokenIds;
  const ids = [...eos, ...sampling.stopTokenIds];
  const visible = sampling.noStopTrim;
  return {
    hiddenStops: visible ? [] : sampling.stop,
    visibleStops: visible ? sampling.stop : [],
    hiddenStopTokenIds: visible ? [] : ids,
    visibleStopTokenIds: visible ? ids : [],
    skipSpecialTokens: sampling.skipSpecialTokens,
  };
}

/**
 * SGLang runs with skip_tokenizer_init and refuses string stops: a stop string that is exactly
 * one token goes to the engine as a stop token id; the others are matched by the gateway alone.
 */
export function foldSingleTokenStops(
  sampling: SamplingInput,
  tokenizer: ModelTokenizer,
): SamplingInput {
  const extra: number[] = [];
  for (const s of sampling.stop) {
    const id = tokenizer.tokenToId(s);
    if (id !== undefined) extra.push(id);
  }
  if (extra.length === 0) return sampling;
  return { ...sampling, stopTokenIds: [...sampling.stopTokenIds, ...extra] };
}
