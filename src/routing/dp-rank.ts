/**
 * DP-aware routing (`--dp-aware`): a logical worker `url@rank` is reached at its base URL and
 * the rank travels in the body as `data_parallel_rank` (SMG `prepare_request`). Only then is
 * the body re-serialized; every other request goes upstream as the client's bytes.
 */
import type { Worker } from '../workers/worker.js';
import type { RequestContext } from './request-context.js';

export function upstreamBodyFor(ctx: RequestContext, worker: Worker): Buffer {
  if (worker.dpRank === undefined) return ctx.upstreamBody;
  return Buffer.from(JSON.stringify({ ...ctx.body, data_parallel_rank: worker.dpRank }));
}
