/**
 * SMG's overload shed at selection (`overload.rs`): when every candidate for the model is
 * vetoed by overload protection, answer 503 at once with Retry-After (the load-monitor interval,
 * when the veto can next change) and mark it non-retryable, since retrying only adds load.
 * An empty pool is not a shed. SMG's second check "at dispatch" cannot trigger here: selection
 * and dispatch run in one synchronous step, so the veto cannot change in between.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Worker } from '../workers/worker.js';

export function checkOverloadShed(
  candidates: readonly Worker[],
  model: string,
  retryAfterSecs: number,
  metrics: GatewayMetrics,
): void {
  if (candidates.length === 0 || !candidates.every((w) => w.overloaded)) return;
  metrics.overloadShed.inc({ stage: 'selection' });
  throw new GatewayError(
    'no_available_workers',
    `All workers for model '${model}' are overloaded`,
    {
      headers: { 'retry-after': String(Math.max(1, Math.round(retryAfterSecs))) },
      retryable: false,
    },
  );
}
