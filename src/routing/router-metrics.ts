/**
 * The router-level bookkeeping every router shares: retry counters for the executor, and the
 * error and duration metrics recorded around a routed request whatever way it ends. Label
 * values are SMG's (observability/metric-labels.ts).
 */
import { GatewayError } from '../errors/gateway-error.js';
import { errorTypeForStatus, type BackendType } from '../observability/metric-labels.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Answer } from './answer.js';
import type { RequestContext } from './request-context.js';
import type { RetryHooks } from './retry.js';
import type { RouterChoiceHooks } from './router-manager.js';
import { routerSeriesOf, type RouterSeries } from './router-series.js';

/**
 * IGW: the manager's choices and weights as `smg_router_selection_total` and `smg_router_weight`,
 * the weights refreshed at every scrape.
 */
export function routerChoiceMetricHooks(metrics: GatewayMetrics): RouterChoiceHooks {
  return {
    onChoice: (routerType, model) =>
      metrics.routerSelection.inc({ router_type: routerType, model }),
    onWeights: (model, weights) => {
      for (const [routerType, value] of Object.entries(weights))
        metrics.routerWeight.set({ model, router_type: routerType }, value);
    },
    onScrape: (reportWeights) => metrics.collectRouterWeightsWith(reportWeights),
  };
}

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

/** The router series of a request: its backend, its model label and its endpoint label. */
export function routerSeries(
  metrics: GatewayMetrics,
  backend: BackendType,
  ctx: RequestContext,
): RouterSeries {
  return routerSeriesOf(metrics).router(backend, ctx.modelLabel, ctx.endpointLabel);
}

/** Observes the router duration when the answer it rides on is over. */
class DurationLease {
  constructor(
    private readonly series: RouterSeries,
    private readonly startTime: number,
  ) {}
  release(): void {
    this.series.duration.observe((performance.now() - this.startTime) / 1000);
  }
}

/**
 * Runs a routed request, recording it in `smg_router_requests_total` (before selection, as SMG
 * does, so requests that find no worker are counted too), its gateway error (if any, by SMG's
 * status class) and its duration: until the error, or until its answer has been written.
 */
export async function withRouterMetrics(
  metrics: GatewayMetrics,
  series: RouterSeries,
  ctx: RequestContext,
  run: () => Promise<Answer>,
): Promise<Answer> {
  (ctx.stream ? series.requestsStreaming : series.requestsPlain).inc();
  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    if (err instanceof GatewayError)
      metrics.routerErrors.inc({ ...series.labels, error_type: errorTypeForStatus(err.status) });
    series.duration.observe((performance.now() - ctx.startTime) / 1000);
    throw err;
  }
  answer.leases.push(new DurationLease(series, ctx.startTime));
  return answer;
}
