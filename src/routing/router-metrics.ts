/**
 * The router-level bookkeeping every router shares: retry counters for the executor, and the
 * error and duration metrics recorded around a routed request whatever way it ends. Label
 * values are SMG's (observability/metric-labels.ts).
 */
import { GatewayError } from '../errors/gateway-error.js';
import {
  CONNECTION_HTTP,
  errorTypeForStatus,
  ROUTER_TYPE_HTTP,
  type BackendType,
} from '../observability/metric-labels.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Answer } from './answer.js';
import type { RequestContext } from './request-context.js';
import type { RetryHooks } from './retry.js';

/**
 * Retry counters, once per worker type the retried attempt used: a PD retry re-sends both legs,
 * so SMG's PD router counts it under `prefill` and again under `decode`.
 */
export function retryMetricHooks(
  metrics: GatewayMetrics,
  workerTypes: readonly ('regular' | 'prefill' | 'decode')[],
  ctx: RequestContext,
): RetryHooks {
  return {
    onRetry: (attempt, delayMs) => {
      for (const workerType of workerTypes)
        metrics.retries.inc({ worker_type: workerType, endpoint: ctx.endpointLabel });
      metrics.retryBackoff.observe({ attempt: String(attempt) }, delayMs / 1000);
    },
    onExhausted: () => {
      for (const workerType of workerTypes)
        metrics.retriesExhausted.inc({ worker_type: workerType, endpoint: ctx.endpointLabel });
    },
  };
}

export interface RouterLabels {
  router_type: string;
  backend_type: string;
  connection_mode: string;
  model: string;
  endpoint: string;
}

export function routerLabels(backend: BackendType, ctx: RequestContext): RouterLabels {
  return {
    router_type: ROUTER_TYPE_HTTP,
    backend_type: backend,
    connection_mode: CONNECTION_HTTP,
    model: ctx.modelLabel,
    endpoint: ctx.endpointLabel,
  };
}

/**
 * Runs a routed request, recording its gateway error (if any, by SMG's status class) and its
 * duration: until the error, or until its answer has been written (a lease on the answer).
 */
export async function withRouterMetrics(
  metrics: GatewayMetrics,
  labels: RouterLabels,
  ctx: RequestContext,
  run: () => Promise<Answer>,
): Promise<Answer> {
  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    if (err instanceof GatewayError)
      metrics.routerErrors.inc({ ...labels, error_type: errorTypeForStatus(err.status) });
    metrics.routerDuration.observe(labels, (performance.now() - ctx.startTime) / 1000);
    throw err;
  }
  answer.leases.push({
    release: () =>
      metrics.routerDuration.observe(labels, (performance.now() - ctx.startTime) / 1000),
  });
  return answer;
}
