/**
 * Regular (non-PD) HTTP routing: model -> candidates -> policy -> load lease -> send -> answer,
 * inside the retry decorator. Selection and the lease are taken in one synchronous step (no
 * await in between), so two requests never both see a worker's old load. The answer holds the
 * lease until it is written (or discarded for a retry), and its end is recorded on that
 * worker's breaker.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { AttemptSpan } from '../observability/tracing.js';
import type { PolicyRegistry } from '../policies/registry.js';
import {
  classifyTransportError,
  midStreamGatewayError,
  transportGatewayError,
} from '../upstream/errors.js';
import { isEventStream } from '../upstream/event-stream.js';
import { buildUpstreamHeaders, relayResponseHeaders } from '../upstream/headers.js';
import type { UpstreamPools } from '../upstream/pools.js';
import { callUpstream, type UpstreamHead } from '../upstream/upstream-call.js';
import type { Clock, Random } from '@switchyard/kit';
import { outcomeForStatus } from '../workers/circuit-breaker.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import type { Answer, AnswerLease } from './answer.js';
import type { RequestContext } from './request-context.js';
import { RETRYABLE_STATUSES, withRetry, type RetryConfig } from './retry.js';
import type { Router } from './router.js';
import { retryMetricHooks, routerSeries, withRouterMetrics } from './router-metrics.js';
import { routerSeriesOf, type RouterSeries } from './router-series.js';
import { selectRegularWorker } from './select-regular.js';
import { upstreamBodyFor } from './dp-rank.js';

export interface RegularRouterDeps {
  registry: WorkerRegistry;
  policies: PolicyRegistry;
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  logger: Logger;
  random: Random;
  clock: Clock;
  retry: RetryConfig;
  requestTimeoutMs: number;
  /** Retry-After for overload sheds: the load-monitor interval (SMG). */
  overloadRetryAfterSecs: number;
}

export class RegularRouter implements Router {
  readonly type = 'http-regular' as const;

  constructor(private readonly deps: RegularRouterDeps) {}

  /** Picks an HTTP worker for the request or throws the SMG answer for why there is none. */
  selectWorker(ctx: RequestContext): Worker {
    return selectRegularWorker(this.deps, ctx, 'http');
  }

  async route(ctx: RequestContext): Promise<Answer> {
    const { metrics } = this.deps;
    const series = routerSeries(metrics, 'regular', ctx);
    return withRouterMetrics(metrics, series, ctx, () =>
      withRetry((_, span) => this.#attempt(ctx, series, span), this.deps.retry, {
        random: this.deps.random,
        signal: ctx.signal,
        hooks: retryMetricHooks(metrics, ['regular'], ctx),
        clock: this.deps.clock,
        trace: ctx.trace,
      }),
    );
  }

  /**
   * One attempt: select, take the load lease, send, and turn the head into an answer that holds
   * the lease until it is written. A transport failure is thrown as a retryable error with the
   * lease already released.
   */
  async #attempt(
    ctx: RequestContext,
    series: RouterSeries,
    span: AttemptSpan | undefined,
  ): Promise<Answer> {
    const { pools, metrics } = this.deps;
    const worker = this.selectWorker(ctx);
    span?.set('switchyard.worker.url', worker.url);
    const load = worker.acquireLoad();
    let head: UpstreamHead;
    try {
      const pool = pools.get(worker.origin);
      if (!pool)
        throw new GatewayError(
          'no_available_workers',
          `Worker ${worker.url} has no connection pool`,
        );
      const body = upstreamBodyFor(ctx, worker);
      const call = callUpstream(
        pool,
        {
          method: 'POST',
          path: worker.upstreamPath(ctx.path),
          headers: buildUpstreamHeaders(ctx, worker.apiKey, body.length, span?.traceparent()),
          body,
        },
        ctx.signal,
        this.deps.requestTimeoutMs,
        this.deps.clock,
      );
      try {
        head = await call.head;
      } catch (err) {
        if (ctx.signal.aborted) throw err; // the client left; nobody to answer
        const kind = classifyTransportError(err);
        metrics.workerErrors.inc({
          worker_type: worker.type,
          connection_mode: 'http',
          error_type: kind,
        });
        worker.circuit.record('failure');
        throw transportGatewayError(err, worker.url);
      }
    } catch (err) {
      load.release();
      throw err;
    }
    const status = head.status;
    routerSeriesOf(metrics).upstreamStatus(status).inc();
    // A retryable status is charged now: the answer may be discarded by the retry decorator.
    const retryable = RETRYABLE_STATUSES.has(status);
    if (retryable) worker.circuit.record(outcomeForStatus(status));
    const streaming = isEventStream(head.headers);
    return {
      status,
      headers: relayResponseHeaders(head.headers, {
        'x-request-id': ctx.requestId,
        'x-smg-routed-worker-id': worker.key,
      }),
      body: head.body,
      eventStream: streaming,
      routedTo: worker,
      leases: [load, this.#outcomeLease(ctx, worker, retryable)],
      midStreamError: (cause) => midStreamGatewayError(cause, worker.url),
      onFirstByte: streaming ? () => series.ttft.observe(elapsedSince(ctx.startTime)) : undefined,
    };
  }

  /** Records how the written answer ended on the worker's breaker and in the error metrics. */
  #outcomeLease(ctx: RequestContext, worker: Worker, retryable: boolean): AnswerLease {
    const { metrics, logger } = this.deps;
    return {
      release: (end, error) => {
        if (end === 'upstream_failed') {
          // A stream that dies after its head is a failure of the worker, not a success (the
          // peers that recorded the 200 head kept routing to a dying worker).
          worker.circuit.record('failure');
          metrics.workerErrors.inc({
            worker_type: worker.type,
            connection_mode: 'http',
            error_type: 'stream',
          });
          logger.warn(
            { worker: worker.url, requestId: ctx.requestId, err: String(error) },
            'worker failed mid-response',
          );
        } else if (end === 'complete' && !retryable) {
          worker.circuit.record('success');
        }
      },
    };
  }
}

/** Seconds since a `performance.now()` reading. */
function elapsedSince(start: number): number {
  return (performance.now() - start) / 1000;
}
