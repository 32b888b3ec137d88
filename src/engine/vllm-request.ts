/**
 * `GenerateInput` → vLLM's `GenerateRequest` (vllm_engine.proto). Unlike SGLang, vLLM's servicer
 * detokenizes, so stop strings are sent; temperature is left unset when the client gave none so
 * vLLM applies its own (model) default, as SMG does.
 */
import { clampInt32 } from './request-common.js';
import type { Constraint, GenerateInput } from './types.js';
import { I32_MAX } from '../util/rust-int-limits.js';

export type VllmConstraint =
  | { json_schema: string }
  | { regex: string }
  | { grammar: string }
  | { structural_tag: string }
  | { json_object: boolean };

export type VllmSamplingParams = {
  temperature?: number;
  top_p: number;
  top_k: number;
  min_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  repetition_penalty: number;
  max_tokens?: number;
  min_tokens: number;
  stop: string[];
  stop_token_ids: number[];
  skip_special_tokens: boolean;
  spaces_between_special_tokens: boolean;
  ignore_eos: boolean;
  n: number;
  logprobs?: number;
  seed?: number;
  include_stop_str_in_output: boolean;
  logit_bias?: Record<string, number>;
} & Partial<VllmConstraint>;

export interface VllmGenerateRequest {
  request_id: string;
  tokenized: { original_text: string; input_ids: number[] };
  sampling_params: VllmSamplingParams;
  stream: boolean;
  kv_transfer_params_json?: string;
  data_parallel_rank?: number;
}

function vllmConstraint(c: Constraint | undefined): VllmConstraint | undefined {
  if (c === undefined) return undefined;
  switch (c.kind) {
    case 'json_object':
      return { json_object: true };
    case 'json_schema':
      return { json_schema: c.value };
    case 'regex':
      return { regex: c.value };
    case 'ebnf':
      return { grammar: c.value };
    case 'structural_tag':
      return { structural_tag: c.value };
  }
}

/**
 * vLLM's logit_bias is a map<int32, float> keyed by token id (SGLang's key is a string); a key
 * that is not an int32 cannot go on the wire, so it is left out.
 */
function vllmLogitBias(
  bias: Readonly<Record<string, number>> | undefined,
): Record<string, number> | undefined {
  if (bias === undefined) return undefined;
  const out: Record<string, number> = {};
  let any = false;
  for (const [key, value] of Object.entries(bias)) {
    const id = Number(key);
    if (!Number.isInteger(id) || id < 0 || id > I32_MAX) continue;
    out[String(id)] = value;
    any = true;
  }
  return any ? out : undefined;
}

export function buildVllmRequest(input: GenerateInput): VllmGenerateRequest {
  const s = input.sampling;
  const sampling: VllmSamplingParams = {
    top_p: s.topP ?? 1,
    // uint32 on vLLM's side, where 0 means disabled (SGLang's -1).
    top_k: Math.max(0, s.topK ?? 0),
    min_p: s.minP ?? 0,
    frequency_penalty: s.frequencyPenalty ?? 0,
    presence_penalty: s.presencePenalty ?? 0,
    repetition_penalty: s.repetitionPenalty ?? 1,
    min_tokens: s.minNewTokens ?? 0,
    stop: [...s.stop],
    stop_token_ids: [...s.stopTokenIds],
    skip_special_tokens: s.skipSpecialTokens,
    spaces_between_special_tokens: s.spacesBetweenSpecialTokens,
    ignore_eos: s.ignoreEos,
    n: s.n,
    include_stop_str_in_output: s.noStopTrim,
    ...vllmConstraint(s.constraint),
  };
  if (s.temperature !== undefined) sampling.temperature = s.temperature;
  if (s.maxNewTokens !== undefined) sampling.max_tokens = s.maxNewTokens;
  // SMG: min(top_logprobs ?? 1, 20) for chat; the pipeline has already capped a given count.
  if (input.logprobs !== undefined) sampling.logprobs = input.logprobs.topLogprobs ?? 1;
  if (s.seed !== undefined) sampling.seed = clampInt32(s.seed);
  const bias = vllmLogitBias(s.logitBias);
  if (bias !== undefined) sampling.logit_bias = bias;

  const req: VllmGenerateRequest = {
    request_id: input.requestId,
    // The `input` oneof: SMG always sends token ids, never `text`.
    tokenized: { original_text: input.originalText, input_ids: [...input.inputIds] },
    sampling_params: sampling,
    stream: input.stream,
  };
  // Relayed as the exact string (NIXL params from the prefill): re-serializing would change it.
  if (input.kvTransferParamsJson !== undefined) {
    req.kv_transfer_params_json = input.kvTransferParamsJson;
  }
  if (input.dataParallelRank !== undefined) req.data_parallel_rank = input.dataParallelRank;
  return req;
}
