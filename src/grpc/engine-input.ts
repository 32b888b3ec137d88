/**
 * What every gRPC dispatch builds from a request and its chosen worker: the prompt prepared with
 * the model's tokenizer (cached per model across retries), the engine's `GenerateInput`, and the
 * response metadata. Shared by the regular and the PD gRPC routers.
 */
import type { GenerateInput, SamplingInput } from '../engine/types.js';
import type { RequestContext } from '../routing/request-context.js';
import type { ModelTokenizer } from '../tokenizer/types.js';
import { uuidv7 } from '../util/uuid7.js';
import type { Worker } from '../workers/worker.js';
import type { ResponseMeta } from './formats.js';
import { baseKind, type GrpcPlan } from './plan.js';
import {
  checkContextLength,
  foldSingleTokenStops,
  preparePrompt,
  tokenizerNotFound,
  type PreparedPrompt,
} from './prepare.js';

export interface TokenizerLookup {
  get(modelId: string): ModelTokenizer | undefined;
}

/** The model of the request, else (no model named) the worker's. */
export function modelIdFor(ctx: RequestContext, worker: Worker): string {
  return ctx.model !== 'unknown' ? ctx.model : worker.modelId;
}

/**
 * The prompt prepared with the model's tokenizer; `cache` keeps it across the request's retries.
 * Each worker's context length is checked, since retries may pick another worker. With no worker
 * yet (a request that names its model) only the prompt is prepared.
 */
export function preparedFor(
  tokenizers: TokenizerLookup,
  ctx: RequestContext,
  plan: GrpcPlan,
  workers: readonly Worker[],
  cache: Map<string, PreparedPrompt>,
): PreparedPrompt {
  const modelId = ctx.model !== 'unknown' ? ctx.model : workers[0]?.modelId;
  if (modelId === undefined) throw new RangeError('preparedFor needs a model or a worker');
  let p = cache.get(modelId);
  if (p === undefined) {
    const tokenizer = tokenizers.get(modelId);
    if (tokenizer === undefined) throw tokenizerNotFound(modelId);
    p = preparePrompt(plan, tokenizer);
    cache.set(modelId, p);
  }
  for (const w of workers) checkContextLength(p, w.labels);
  return p;
}

/** The engine request for one worker; SGLang gets single-token stop strings as ids. */
export function engineInput(
  plan: GrpcPlan,
  prepared: PreparedPrompt,
  worker: Worker,
  sampling: SamplingInput,
  requestId: string,
): GenerateInput {
  return {
    // The engine runs a Messages request as the chat it was rendered from.
    kind: baseKind(plan),
    requestId,
    inputIds: prepared.inputIds,
    originalText: prepared.text,
    stream: plan.stream,
    sampling:
      worker.runtime === 'sglang' ? foldSingleTokenStops(sampling, prepared.tokenizer) : sampling,
    logprobs: plan.logprobs,
    dataParallelRank: worker.dpRank,
  };
}

/**
 * A fresh engine request id, so every dispatch has its own: the client's `rid` (else the request
 * id) plus a UUIDv7, as SMG suffixes ids in PD.
 */
export function freshRequestId(ctx: RequestContext): string {
  return `${ctx.rid ?? ctx.requestId}-${uuidv7()}`;
}

export function responseMeta(
  ctx: RequestContext,
  requestId: string,
  worker: Worker,
  prepared: PreparedPrompt,
): ResponseMeta {
  const tokenizer = prepared.tokenizer;
  return {
    // Anthropic message ids start `msg_`; the engine's request id stays the dispatch's own.
    id: ctx.endpoint === 'messages' ? `msg_${uuidv7().replace(/-/g, '')}` : requestId,
    model: modelIdFor(ctx, worker),
    created: Math.floor(Date.now() / 1000),
    fingerprint: worker.labels.weight_version ?? 'default',
    tokenText: (id) => tokenizer.decode([id], false),
  };
}
