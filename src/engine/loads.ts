/**
 * `GetLoadsResponse` → `EngineLoad[]`. SGLang and TokenSpeed number SchedulerLoad differently
 * (TokenSpeed's max_running_requests is field 7, SGLang's token_usage), but with keepCase objects
 * that is the deserializer's business: the field names are the same. vLLM sends core metrics
 * only, so its missing sections read as 0.
 */
import type { EngineLoad } from './types.js';

/** The sections SMG's load monitor asks for. */
export const LOADS_INCLUDE: readonly string[] = ['core', 'disagg', 'queues', 'memory'];

export interface WireDisaggregation {
  mode?: string;
  prefill_prealloc_queue_reqs?: number;
  prefill_inflight_queue_reqs?: number;
  decode_prealloc_queue_reqs?: number;
  decode_transfer_queue_reqs?: number;
  decode_retracted_queue_reqs?: number;
}

export interface WireSchedulerLoad {
  dp_rank?: number;
  num_running_reqs?: number;
  num_waiting_reqs?: number;
  num_used_tokens?: number;
  max_total_num_tokens?: number;
  max_running_requests?: number;
  token_usage?: number;
  disaggregation?: WireDisaggregation;
}

export interface WireLoadsResponse {
  loads?: WireSchedulerLoad[];
}

export function normaliseLoads(resp: WireLoadsResponse): EngineLoad[] {
  return (resp.loads ?? []).map((l) => {
    const d = l.disaggregation;
    return {
      dpRank: l.dp_rank ?? 0,
      numRunningReqs: l.num_running_reqs ?? 0,
      numWaitingReqs: l.num_waiting_reqs ?? 0,
      numUsedTokens: l.num_used_tokens ?? 0,
      maxTotalNumTokens: l.max_total_num_tokens ?? 0,
      maxRunningRequests: l.max_running_requests ?? 0,
      tokenUsage: l.token_usage ?? 0,
      // SMG folds SGLang's five PD queues into two numbers, one per role.
      prefillQueue: (d?.prefill_prealloc_queue_reqs ?? 0) + (d?.prefill_inflight_queue_reqs ?? 0),
      decodeQueue:
        (d?.decode_prealloc_queue_reqs ?? 0) +
        (d?.decode_transfer_queue_reqs ?? 0) +
        (d?.decode_retracted_queue_reqs ?? 0),
    };
  });
}
