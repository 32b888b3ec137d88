/**
 * Regular (non-PD) HTTP routing: model -> candidates -> policy -> load lease -> forward -> relay.
 * Selection and the lease are taken in one synchronous step (no await in between), so two
 * requests never both see a worker's old load.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PolicyRegistry } from '../policies/registry.js';
import { classifyTransportError, midStreamGatewayError, transportGatewayError } from '../upstream/errors.js';
import { AttemptSignal, isEventStream, relayResponse, sendUpstream } from '../upstream/forward.js';
import { buildUpstreamHeaders } from '../upstream/headers.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import type { RequestContext } from './request-context.js';
import type { Router } from './router.js';

export interface RegularRouterDeps {
  registry: WorkerRegistry;
  policies: PolicyRegistry;
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  logger: Logger;
  requestTimeoutMs: number;
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
        throw new GatewayError('no_available_workers', 'No workers are registered');
      }
      throw new GatewayError('model_not_found', `No worker available for model '${ctx.model}'`);
    }
    const available = candidates.filter((w) => w.isAvailable());
    const policy = policies.forModel(ctx.model);
    const worker = policy.select(available, { model: ctx.model, headers: ctx.headers, leg: 'single' });
    if (!worker) {
      throw new GatewayError('no_available_workers', `No available workers for model '${ctx.model}'`);
    }
    metrics.workerSelection.inc({ worker_type: 'regular', connection_mode: 'http', model: ctx.model, policy: policy.name });
    return worker;
  }

  async route(ctx: RequestContext, res: ServerResponse): Promise<void> {
    const { metrics } = this.deps;
    const labels = { router_type: this.type, backend_type: 'unknown', connection_mode: 'http', model: ctx.model, endpoint: ctx.endpoint };
    try {
      const worker = this.selectWorker(ctx);
      labels.backend_type = worker.runtime;
      metrics.routerRequests.inc({ ...labels, streaming: String(ctx.stream) });
      await this.#forward(ctx, worker, res);
    } catch (err) {
      if (err instanceof GatewayError) metrics.routerErrors.inc({ ...labels, error_type: err.code });
      throw err;
    } finally {
      metrics.routerDuration.observe(labels, (performance.now() - ctx.startTime) / 1000);
    }
  }

  async #forward(
    ctx: RequestContext,
    worker: Worker,
    res: ServerResponse,
  ): Promise<void> {
    const { pools, metrics } = this.deps;
    const load = worker.acquireLoad();
    const attempt = new AttemptSignal(ctx.signal, this.deps.requestTimeoutMs);
    try {
      const pool = pools.get(worker.origin);
      if (!pool) throw new GatewayError('no_available_workers', `Worker ${worker.url} has no connection pool`);
      let upstream;
      try {
        upstream = await sendUpstream({
          pool,
          method: 'POST',
          path: ctx.path,
          headers: buildUpstreamHeaders(ctx.headers, ctx.requestId, worker.apiKey, ctx.upstreamBody.length),
          body: ctx.upstreamBody,
          signal: attempt.signal,
        });
      } catch (err) {
        if (ctx.signal.aborted) return; // the client left; nobody to answer
        metrics.workerErrors.inc({ worker_type: worker.type, connection_mode: 'http', error_type: classifyTransportError(err) });
        throw transportGatewayError(err, worker.url);
      }
      metrics.routerUpstreamResponses.inc({ router_type: this.type, status_code: String(upstream.statusCode), error_code: '' });
      const streaming = isEventStream(upstream.headers);
      const ttft = metrics.routerTtft.labels({ router_type: this.type, backend_type: worker.runtime, model: ctx.model, endpoint: ctx.endpoint });
      const start = ctx.startTime;
      const { outcome, error } = await relayResponse(upstream, res, {
        headers: { 'x-request-id': ctx.requestId, 'x-smg-routed-worker-id': worker.url },
        onFirstByte: streaming ? () => ttft.observe((performance.now() - start) / 1000) : undefined,
        midStreamError: (cause) => midStreamGatewayError(cause, worker.url),
      });
      if (outcome === 'upstream_failed') {
        metrics.workerErrors.inc({ worker_type: worker.type, connection_mode: 'http', error_type: 'stream' });
        this.deps.logger.warn({ worker: worker.url, requestId: ctx.requestId, err: String(error) }, 'worker failed mid-response');
      }
    } finally {
      attempt.dispose();
      load.release();
    }
  }
}
