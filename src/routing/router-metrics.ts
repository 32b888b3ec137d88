/**
 * The router-level bookkeeping every router shares: retry counters for the executor, and the
 * error and duration metrics recorded around a routed request whatever way it ends.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { RequestContext } from './request-context.js';
import type { RetryHooks } from './retry.js';

export function retryMetricHooks(metrics: GatewayMetrics, workerType: 'regular' | 'pd', ctx: RequestContext): RetryHooks {
  return {
    onRetry: (attempt, delayMs) => {
      metrics.retries.inc({ worker_type: workerType, endpoint: ctx.endpoint });
      metrics.retryBackoff.observe({ attempt: String(attempt) }, delayMs / 1000);
    },
    onExhausted: () => metrics.retriesExhausted.inc({ worker_type: workerType, endpoint: ctx.endpoint }),
  };
}

export interface RouterLabels {
  router_type: string;
  backend_type: string;
  connection_mode: string;
  model: string;
  endpoint: string;
}

/** Runs a routed request, recording its gateway error (if any) and its duration. */
export async function withRouterMetrics(metrics: GatewayMetrics, labels: RouterLabels, ctx: RequestContext, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (err instanceof GatewayError) metrics.routerErrors.inc({ ...labels, error_type: err.code });
    throw err;
  } finally {
    metrics.routerDuration.observe(labels, (performance.now() - ctx.startTime) / 1000);
  }
}
