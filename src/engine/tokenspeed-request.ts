/**
 * `GenerateInput` → TokenSpeed's `GenerateRequest` (tokenspeed_scheduler.proto). Every sampling
 * scalar there is proto3 `optional`, so SMG wraps each in `Some` with SGLang's defaults; the
 * servicer then never has to guess whether a zero was meant. The 64-bit fields (bootstrap room,
 * sampling seed) travel as decimal strings so they never pass through a JS number.
 */
import {
  copyLogitBias,
  schedulerConstraint,
  schedulerScalars,
  type SchedulerConstraint,
} from './request-common.js';
import type { GenerateInput } from './types.js';

/** KvBootstrapInfo.bootstrap_room is an int64; SMG mints rooms in [0, i64::MAX). */
export const TOKENSPEED_ROOM_LIMIT = 2n ** 63n;

export type TokenSpeedSamplingParams = {
  temperature: number;
  top_p: number;
  top_k: number;
  min_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  repetition_penalty: number;
  max_new_tokens?: number;
  min_new_tokens: number;
  stop: string[];
  stop_token_ids: number[];
  ignore_eos: boolean;
  skip_special_tokens: boolean;
  spaces_between_special_tokens: boolean;
  n: number;
  logit_bias?: Record<string, number>;
  no_stop_trim: boolean;
  sampling_seed?: string;
} & Partial<SchedulerConstraint>;

export interface TokenSpeedGenerateRequest {
  request_id: string;
  tokenized: { input_ids: number[]; original_text: string };
  sampling_params: TokenSpeedSamplingParams;
  return_logprob: boolean;
  logprob_start_len: number;
  top_logprobs_num: number;
  stream: boolean;
  kv_bootstrap_info?: { bootstrap_host: string; bootstrap_port: number; bootstrap_room: string };
}

export function buildTokenSpeedRequest(input: GenerateInput): TokenSpeedGenerateRequest {
  const s = input.sampling;
  const sampling: TokenSpeedSamplingParams = {
    ...schedulerScalars(s),
    min_new_tokens: s.minNewTokens ?? 0,
    // TokenSpeed's gRPC servicer detokenizes stop strings itself (SMG strips them only on ZMQ).
    stop: [...s.stop],
    stop_token_ids: [...s.stopTokenIds],
    ignore_eos: s.ignoreEos,
    skip_special_tokens: s.skipSpecialTokens,
    spaces_between_special_tokens: s.spacesBetweenSpecialTokens,
    n: s.n,
    no_stop_trim: s.noStopTrim,
    ...schedulerConstraint(s.constraint),
  };
  if (s.maxNewTokens !== undefined) sampling.max_new_tokens = s.maxNewTokens;
  const bias = copyLogitBias(s.logitBias);
  if (bias !== undefined) sampling.logit_bias = bias;
  // uint64: SMG casts the request's i64 seed, so a negative seed wraps as it does in Rust.
  if (s.seed !== undefined) {
    sampling.sampling_seed = BigInt.asUintN(64, BigInt(Math.trunc(s.seed))).toString();
  }

  const req: TokenSpeedGenerateRequest = {
    request_id: input.requestId,
    tokenized: { input_ids: [...input.inputIds], original_text: input.originalText },
    sampling_params: sampling,
    return_logprob: input.logprobs !== undefined,
    logprob_start_len: -1,
    top_logprobs_num: input.logprobs?.topLogprobs ?? 0,
    stream: input.stream,
  };
  if (input.bootstrap !== undefined) {
    const { host, port, room } = input.bootstrap;
    if (room < 0n || room >= TOKENSPEED_ROOM_LIMIT) {
      throw new RangeError(`TokenSpeed bootstrap room ${room} does not fit its int64 field`);
    }
    req.kv_bootstrap_info = {
      bootstrap_host: host,
      bootstrap_port: port,
      bootstrap_room: room.toString(),
    };
  }
  return req;
}
