/**
 * What differs per runtime once requests are built: the builder, the shape of `Abort`, and
 * whether streamed counts are deltas (reference §1.5).
 */
import type { EngineRuntime } from '@switchyard/protos';
import { buildSglangRequest } from './sglang-request.js';
import { buildTokenSpeedRequest } from './tokenspeed-request.js';
import type { GenerateInput } from './types.js';
import { buildVllmRequest } from './vllm-request.js';

export interface RuntimeProfile {
  buildGenerate(input: GenerateInput): object;
  abortRequest(requestId: string, reason: string): object;
  /** vLLM's chunks carry per-chunk completion counts; the others send running totals. */
  deltaCounts: boolean;
}

/** SGLang and TokenSpeed take one id and a reason; vLLM a list of ids and no reason. */
function singleAbort(requestId: string, reason: string): object {
  return { request_id: requestId, reason };
}

export const RUNTIME_PROFILES: Readonly<Record<EngineRuntime, RuntimeProfile>> = {
  sglang: { buildGenerate: buildSglangRequest, abortRequest: singleAbort, deltaCounts: false },
  vllm: {
    buildGenerate: buildVllmRequest,
    abortRequest: (requestId) => ({ request_ids: [requestId] }),
    deltaCounts: true,
  },
  tokenspeed: {
    buildGenerate: buildTokenSpeedRequest,
    abortRequest: singleAbort,
    deltaCounts: false,
  },
};
