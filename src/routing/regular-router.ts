/**
 * Regular (non-PD) HTTP routing: model -> candidates -> policy -> load lease -> forward -> relay,
 * inside the retry executor. Selection and the lease are taken in one synchronous step (no await
 * in between), so two requests never both see a worker's old load. Each attempt releases its
 * lease before the executor backs off, and records its outcome on that worker's breaker.
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PolicyRegistry } from '../policies/registry.js';
import {
  classifyTransportError,
  midStreamGatewayError,
  transportGatewayError,
} from '../upstream/errors.js';
import { AttemptSignal, isEventStream, relayResponse, sendUpstream } from '../upstream/forward.js';
import { buildUpstreamHeaders } from '../upstream/headers.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { Random } from '../util/random.js';
import { outcomeForStatus } from '../workers/circuit-breaker.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import { selectInfoFor, type RequestContext } from './request-context.js';
import {
  executeWithRetry,
  RETRYABLE_STATUSES,
  type AttemptResult,
  type RetryConfig,
} from './retry.js';
import type { Router } from './router.js';
import { retryMetricHooks, routerLabels, withRouterMetrics } from './router-metrics.js';
import { ROUTER_TYPE_HTTP } from '../observability/metric-labels.js';
import { checkOverloadShed } from './overload-shed.js';
import { upstreamBodyFor } from './dp-rank.js';

export interface RegularRouterDeps {
  registry: WorkerRegistry;
  policies: PolicyRegistry;
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  logger: Logger;
  random: Random;
  retry: RetryConfig;
  requestTimeoutMs: number;
  /** Retry-After for overload sheds: the load-monitor interval (SMG). */
  overloadRetryAfterSecs: number;
}

export class RegularRouter implements Router {
  readonly type = 'http-regular' as const;

  constructor(private readonly deps: RegularRouterDeps) {}

  /** Picks a worker for the request or throws the SMG answer for why there is none. */
  selectWorker(ctx: RequestContext): Worker {
    const { registry, policies, metrics } = this.deps;
    const candidates = registry.forModel(ctx.model, 'regular');
    if (candidates.length === 0) {
      if (registry.ofType('regular').length === 0) {
        throw new GatewayError('no_available_workers', 'No workers are registered', {
          retryable: false,
        });
      }
      throw new GatewayError('model_not_found', `No worker available for model '${ctx.model}'`);
    }
    checkOverloadShed(candidates, ctx.model, this.deps.overloadRetryAfterSecs, metrics);
    const policy = policies.forModel(ctx.model);
    const worker = policy.select(candidates, selectInfoFor(ctx, 'single'));
    if (!worker) {
      // A strict x-smg-target-worker miss will not change on retry within the backoff window.
      const strict = ctx.targetWorker !== undefined && policy.name === 'consistent_hashing';
      throw new GatewayError(
        'no_available_workers',
        `No available workers for model '${ctx.model}'`,
        { retryable: !strict },
      );
    }
    metrics.workerSelection.inc({
      worker_type: 'regular',
      connection_mode: 'http',
      model: ctx.modelLabel,
      policy: policy.name,
    });
    return worker;
  }

  async route(ctx: RequestContext, res: ServerResponse): Promise<void> {
    const { metrics } = this.deps;
    const labels = routerLabels('regular', ctx);
    // Counted before selection, as SMG does, so requests that find no worker are counted too.
    metrics.routerRequests.inc({ ...labels, streaming: String(ctx.stream) });
    await withRouterMetrics(metrics, labels, ctx, () =>
      executeWithRetry(
        async (_i, isLast) => {
          const worker = this.#selectForAttempt(ctx);
          if (worker instanceof GatewayError)
            return { kind: 'retry', reason: worker.code, error: worker };
          return this.#attempt(ctx, worker, res, isLast);
        },
        this.deps.retry,
        this.deps.random,
        ctx.signal,
        retryMetricHooks(metrics, ['regular'], ctx),
      ),
    );
  }

  /** Selection errors that may clear up (no available worker) are retried; others are thrown. */
  #selectForAttempt(ctx: RequestContext): Worker | GatewayError {
    try {
      return this.selectWorker(ctx);
    } catch (err) {
      if (err instanceof GatewayError && err.retryable) return err;
      throw err;
    }
  }

  async #attempt(
    ctx: RequestContext,
    worker: Worker,
    res: ServerResponse,
    isLast: boolean,
  ): Promise<AttemptResult> {
    const { pools, metrics } = this.deps;
    const load = worker.acquireLoad();
    const attempt = new AttemptSignal(ctx.signal, this.deps.requestTimeoutMs);
    try {
      const pool = pools.get(worker.origin);
      if (!pool)
        throw new GatewayError(
          'no_available_workers',
          `Worker ${worker.url} has no connection pool`,
        );
      const body = upstreamBodyFor(ctx, worker);
      let upstream: Dispatcher.ResponseData;
      try {
        upstream = await sendUpstream({
          pool,
          method: 'POST',
          path: worker.upstreamPath(ctx.path),
          headers: buildUpstreamHeaders(ctx, worker.apiKey, body.length),
          body,
          signal: attempt.signal,
        });
      } catch (err) {
        if (ctx.signal.aborted) return { kind: 'done' }; // the client left; nobody to answer
        const kind = classifyTransportError(err);
        metrics.workerErrors.inc({
          worker_type: worker.type,
          connection_mode: 'http',
          error_type: kind,
        });
        worker.circuit.record('failure');
        return { kind: 'retry', reason: kind, error: transportGatewayError(err, worker.url) };
      }
      const status = upstream.statusCode;
      metrics.routerUpstreamResponses.inc({
        router_type: ROUTER_TYPE_HTTP,
        status_code: String(status),
        error_code: '',
      });
      if (RETRYABLE_STATUSES.has(status)) {
        worker.circuit.record(outcomeForStatus(status));
        if (!isLast) {
          await upstream.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          return {
            kind: 'retry',
            reason: `status_${status}`,
            error: new GatewayError(
              'call_upstream_status_error',
              `Worker ${worker.url} answered status ${status}`,
              { status },
            ),
          };
        }
      }
      await this.#relay(ctx, worker, upstream, res);
      return { kind: 'done', exhausted: RETRYABLE_STATUSES.has(status) };
    } finally {
      attempt.dispose();
      load.release();
    }
  }

  async #relay(
    ctx: RequestContext,
    worker: Worker,
    upstream: Dispatcher.ResponseData,
    res: ServerResponse,
  ): Promise<void> {
    const { metrics } = this.deps;
    const streaming = isEventStream(upstream.headers);
    const { router_type, backend_type, model, endpoint } = routerLabels('regular', ctx);
    const ttft = metrics.routerTtft.labels({ router_type, backend_type, model, endpoint });
    const start = ctx.startTime;
    const { outcome, error } = await relayResponse(upstream, res, {
      headers: { 'x-request-id': ctx.requestId, 'x-smg-routed-worker-id': worker.key },
      onFirstByte: streaming ? () => ttft.observe((performance.now() - start) / 1000) : undefined,
      midStreamError: (cause) => midStreamGatewayError(cause, worker.url),
    });
    const retryable = RETRYABLE_STATUSES.has(upstream.statusCode);
    if (outcome === 'upstream_failed') {
      // A stream that dies after its head is a failure of the worker, not a success (the peers
      // that recorded the 200 head kept routing to a dying worker).
      worker.circuit.record('failure');
      metrics.workerErrors.inc({
        worker_type: worker.type,
        connection_mode: 'http',
        error_type: 'stream',
      });
      this.deps.logger.warn(
        { worker: worker.url, requestId: ctx.requestId, err: String(error) },
        'worker failed mid-response',
      );
    } else if (outcome === 'complete' && !retryable) {
      worker.circuit.record(outcomeForStatus(upstream.statusCode));
    }
  }
}
