/**
 * Regular-worker selection, shared by the HTTP relay and the gRPC pipeline: the model's
 * candidates of one connection mode, the overload shed, the model's policy, and SMG's answer for
 * why there is no worker. Each router serves only workers it can speak to, so a model served by
 * both HTTP and gRPC workers has its traffic split by the router choice (connection-split.ts).
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PolicyRegistry } from '../policies/registry.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import { checkOverloadShed } from './overload-shed.js';
import { selectInfoFor, type RequestContext } from './request-context.js';
import { routerSeriesOf } from './router-series.js';

export type ConnectionMode = 'http' | 'grpc';

/** A worker's connection mode, from its URL's scheme (grpc:// and grpcs:// are gRPC). */
export function connectionModeOf(worker: Worker): ConnectionMode {
  return worker.url.startsWith('grpc') ? 'grpc' : 'http';
}

/** `workers` of one connection mode; the same array (no copy) when all of them are. */
export function ofConnection(workers: readonly Worker[], mode: ConnectionMode): readonly Worker[] {
  for (const w of workers) {
    if (connectionModeOf(w) !== mode) return workers.filter((x) => connectionModeOf(x) === mode);
  }
  return workers;
}

export interface SelectDeps {
  registry: WorkerRegistry;
  policies: PolicyRegistry;
  metrics: GatewayMetrics;
  overloadRetryAfterSecs: number;
}

/** Picks a regular worker of `mode` for the request, or throws SMG's answer for why there is none. */
export function selectRegularWorker(
  deps: SelectDeps,
  ctx: RequestContext,
  mode: ConnectionMode,
): Worker {
  const { registry, policies, metrics } = deps;
  const candidates = ofConnection(registry.forModel(ctx.model, 'regular'), mode);
  if (candidates.length === 0) {
    if (registry.ofType('regular').length === 0) {
      throw new GatewayError('no_available_workers', 'No workers are registered', {
        retryable: false,
      });
    }
    throw new GatewayError('model_not_found', `No worker available for model '${ctx.model}'`);
  }
  checkOverloadShed(candidates, ctx.model, deps.overloadRetryAfterSecs, metrics);
  const policy = policies.forModel(ctx.model);
  const worker = policy.select(registry.candidateSet(candidates), selectInfoFor(ctx, 'single'));
  if (!worker) {
    // A strict x-smg-target-worker miss will not change on retry within the backoff window.
    const strict = ctx.targetWorker !== undefined && policy.name === 'consistent_hashing';
    throw new GatewayError(
      'no_available_workers',
      `No available workers for model '${ctx.model}'`,
      {
        retryable: !strict,
      },
    );
  }
  routerSeriesOf(metrics).selection('regular', ctx.modelLabel, policy.name, mode).inc();
  return worker;
}
