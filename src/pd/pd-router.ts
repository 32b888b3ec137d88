/**
 * The HTTP PD router: picks a prefill and a decode worker with their own policies (run
 * independently on the same request context), then dispatches by the prefill's runtime: vLLM
 * in sequence, SGLang/TokenSpeed in parallel. Each retry re-selects the whole pair and mints
 * fresh rooms; every attempt releases its leases before the executor backs off.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import type { PolicyRegistry } from '../policies/registry.js';
import { checkOverloadShed } from '../routing/overload-shed.js';
import { selectInfoFor, type RequestContext } from '../routing/request-context.js';
import { executeWithRetry, type RetryConfig } from '../routing/retry.js';
import type { Router } from '../routing/router.js';
import type { Random } from '../util/random.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker, WorkerType } from '../workers/worker.js';
import { dispatchParallel, type Pair, type PdDeps } from './parallel.js';
import { dispatchSequential } from './sequential.js';

export interface PdRouterDeps extends PdDeps {
  registry: WorkerRegistry;
  prefillPolicies: PolicyRegistry;
  decodePolicies: PolicyRegistry;
  random: Random;
  retry: RetryConfig;
  overloadRetryAfterSecs: number;
}

export class PdRouter implements Router {
  readonly type = 'http-pd' as const;

  constructor(private readonly deps: PdRouterDeps) {}

  #pick(ctx: RequestContext, type: Extract<WorkerType, 'prefill' | 'decode'>): Worker {
    const { registry, metrics } = this.deps;
    const candidates = registry.forModel(ctx.model, type);
    if (candidates.length === 0) {
      const anyForModel = registry.all().some((w) => w.serves(ctx.model) && w.type !== 'regular');
      if (ctx.model !== 'unknown' && registry.all().length > 0 && !anyForModel) {
        throw new GatewayError('model_not_found', `No worker available for model '${ctx.model}'`);
      }
      throw new GatewayError(type === 'prefill' ? 'no_prefill_servers' : 'no_decode_servers', `No ${type} workers for model '${ctx.model}'`);
    }
    checkOverloadShed(candidates, ctx.model, this.deps.overloadRetryAfterSecs, metrics);
    const policies = type === 'prefill' ? this.deps.prefillPolicies : this.deps.decodePolicies;
    const policy = policies.forModel(ctx.model);
    const worker = policy.select(candidates, selectInfoFor(ctx, type));
    if (!worker) throw new GatewayError('no_available_workers', `No available ${type} workers for model '${ctx.model}'`);
    metrics.workerSelection.inc({ worker_type: type, connection_mode: 'http', model: ctx.model, policy: policy.name });
    return worker;
  }

  /** Both legs are chosen before either is sent, so a failed choice takes nothing. */
  selectPair(ctx: RequestContext): Pair {
    return { prefill: this.#pick(ctx, 'prefill'), decode: this.#pick(ctx, 'decode') };
  }

  async route(ctx: RequestContext, res: ServerResponse): Promise<void> {
    const { metrics } = this.deps;
    const labels = { router_type: this.type, backend_type: 'pd', connection_mode: 'http', model: ctx.model, endpoint: ctx.endpoint };
    metrics.routerRequests.inc({ ...labels, streaming: String(ctx.stream) });
    try {
      await executeWithRetry(
        async () => {
          let pair: Pair;
          try {
            pair = this.selectPair(ctx);
          } catch (err) {
            if (err instanceof GatewayError && err.retryable) return { kind: 'retry', reason: err.code, error: err };
            throw err;
          }
          return pair.prefill.runtime === 'vllm'
            ? dispatchSequential(ctx, pair, res, this.deps)
            : dispatchParallel(ctx, pair, res, this.deps);
        },
        this.deps.retry,
        this.deps.random,
        ctx.signal,
        {
          onRetry: (attempt, delayMs) => {
            metrics.retries.inc({ worker_type: 'pd', endpoint: ctx.endpoint });
            metrics.retryBackoff.observe({ attempt: String(attempt) }, delayMs / 1000);
          },
          onExhausted: () => metrics.retriesExhausted.inc({ worker_type: 'pd', endpoint: ctx.endpoint }),
        },
      );
    } catch (err) {
      if (err instanceof GatewayError) metrics.routerErrors.inc({ ...labels, error_type: err.code });
      throw err;
    } finally {
      metrics.routerDuration.observe(labels, (performance.now() - ctx.startTime) / 1000);
    }
  }
}
