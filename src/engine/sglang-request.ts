/**
 * `GenerateInput` → SGLang's `GenerateRequest` (sglang_scheduler.proto), with SMG's defaults
 * (`build_grpc_sampling_params_from_chat`). proto3 zeros are not SGLang's defaults (temperature
 * 0 is greedy, top_k 0 is invalid), so every sampling field is sent explicitly.
 */
import {
  copyLogitBias,
  schedulerConstraint,
  schedulerScalars,
  type SchedulerConstraint,
} from './request-common.js';
import type { GenerateInput } from './types.js';

/** SGLang's DisaggregatedParams.bootstrap_room is an int32; SMG mints rooms below this. */
export const SGLANG_ROOM_LIMIT = 2n ** 31n;

export type SglangSamplingParams = {
  temperature: number;
  top_p: number;
  top_k: number;
  min_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  repetition_penalty: number;
  max_new_tokens?: number;
  stop: string[];
  stop_token_ids: number[];
  skip_special_tokens: boolean;
  spaces_between_special_tokens: boolean;
  n: number;
  min_new_tokens: number;
  ignore_eos: boolean;
  no_stop_trim: boolean;
  logit_bias?: Record<string, number>;
} & Partial<SchedulerConstraint>;

export interface SglangGenerateRequest {
  request_id: string;
  tokenized: { original_text: string; input_ids: number[] };
  sampling_params: SglangSamplingParams;
  return_logprob: boolean;
  logprob_start_len: number;
  top_logprobs_num: number;
  stream: boolean;
  data_parallel_rank?: number;
  disaggregated_params?: { bootstrap_host: string; bootstrap_port: number; bootstrap_room: number };
}

export function buildSglangRequest(input: GenerateInput): SglangGenerateRequest {
  const s = input.sampling;
  const sampling: SglangSamplingParams = {
    ...schedulerScalars(s),
    // The worker runs with skip_tokenizer_init and refuses string stops (INVALID_ARGUMENT); the
    // pipeline has folded single-token stops into stop_token_ids and matches the rest itself.
    stop: [],
    stop_token_ids: [...s.stopTokenIds],
    skip_special_tokens: s.skipSpecialTokens,
    spaces_between_special_tokens: s.spacesBetweenSpecialTokens,
    n: s.n,
    min_new_tokens: s.minNewTokens ?? 0,
    ignore_eos: s.ignoreEos,
    no_stop_trim: s.noStopTrim,
    ...schedulerConstraint(s.constraint),
  };
  if (s.maxNewTokens !== undefined) sampling.max_new_tokens = s.maxNewTokens;
  const bias = copyLogitBias(s.logitBias);
  if (bias !== undefined) sampling.logit_bias = bias;

  const req: SglangGenerateRequest = {
    request_id: input.requestId,
    tokenized: { original_text: input.originalText, input_ids: [...input.inputIds] },
    sampling_params: sampling,
    return_logprob: input.logprobs !== undefined,
    // -1: no input (prompt) logprobs, only output ones.
    logprob_start_len: -1,
    top_logprobs_num: input.logprobs?.topLogprobs ?? 0,
    stream: input.stream,
  };
  // A plain int32 on the wire, so 0 and unset look alike: SMG sets it only for a dp-aware worker.
  if (input.dataParallelRank !== undefined) req.data_parallel_rank = input.dataParallelRank;
  if (input.bootstrap !== undefined) {
    const { host, port, room } = input.bootstrap;
    if (room < 0n || room >= SGLANG_ROOM_LIMIT) {
      throw new RangeError(`SGLang bootstrap room ${room} does not fit its int32 field`);
    }
    req.disaggregated_params = {
      bootstrap_host: host,
      bootstrap_port: port,
      bootstrap_room: Number(room),
    };
  }
  return req;
}
