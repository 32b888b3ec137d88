/**
 * The IGW (`--enable-igw`) router manager: every router kind exists at once, and each request goes
 * to one of them with probability proportional to the capacity the request's model has in that
 * router's workers (SMG `router_manager.rs`). Operators move a model from regular to PD serving
 * (and back) by adding and removing workers; traffic follows the workers that are actually
 * available instead of flipping when the first PD worker appears.
 *
 * Differences from SMG, all deliberate: only available workers count (SMG counted dead ones);
 * PD weight is 2·min(P, D) by default; a router is never picked for an endpoint it cannot
 * serve (SMG's PD router answered 501); a routing key pins the pool choice.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { Random } from '@switchyard/kit';
import type { WorkerRegistry } from '../workers/registry.js';
import { UNKNOWN_MODEL_ID, WORKER_TYPES } from '../workers/worker.js';
import type { Endpoint } from './endpoint.js';
import type { RequestContext } from './request-context.js';
import type { Answer } from './answer.js';
import type { Router, RouterType } from './router.js';
import {
  defaultSupports,
  emptyCounts,
  pickWeighted,
  ROUTER_ORDER,
  ROUTER_WORKER_TYPES,
  routerWeights,
  sameWeights,
  stickyPoint,
  type PdWeightMode,
  type PoolCounts,
  type RouterWeights,
} from './router-weights.js';

/** A router the manager can choose; `supports` overrides the per-type default endpoint table. */
export interface ManagedRouter extends Router {
  supports?(endpoint: Endpoint): boolean;
}

/**
 * Metric callbacks, so the manager needs no metric definitions of its own. `onChoice` runs
 * once per routed request; `onWeights` whenever a model's weights differ from the last ones
 * reported for it, and from `reportWeights()` (meant for a gauge's scrape-time `collect`).
 * `onScrape` is given `reportWeights` once, when the manager is built, for that `collect`.
 */
export interface RouterChoiceHooks {
  onChoice(routerType: RouterType, model: string): void;
  onWeights(model: string, weights: RouterWeights): void;
  onScrape?(reportWeights: () => void): void;
}

/** The registry surface the manager reads. */
export type ManagerRegistry = Pick<WorkerRegistry, 'candidates' | 'models' | 'all'>;

export interface RouterManagerOptions {
  registry: ManagerRegistry;
  regular: ManagedRouter;
  /** Absent when PD routing is not built; PD workers then never receive traffic. */
  pd?: ManagedRouter | undefined;
  weightMode: PdWeightMode;
  random: Random;
  metrics?: RouterChoiceHooks | undefined;
}

/** What the manager decided for one request, for tests and debugging. */
export interface RouterChoice {
  readonly router: ManagedRouter;
  readonly weights: RouterWeights;
}

const NO_HOOKS: RouterChoiceHooks = { onChoice: () => undefined, onWeights: () => undefined };

const ZERO_WEIGHTS: RouterWeights = { 'http-pd': 0, 'http-regular': 0 };

export class RouterManager implements Router {
  /**
   * `Router.type` names a concrete router; the manager reports its default (regular) router's,
   * the one SMG falls back to. Metrics label the chosen router's own type, never this one.
   */
  readonly type: RouterType = 'http-regular';

  readonly #registry: ManagerRegistry;
  readonly #routers = new Map<RouterType, ManagedRouter>();
  readonly #mode: PdWeightMode;
  readonly #random: Random;
  readonly #hooks: RouterChoiceHooks;
  /** Last weights reported per model: the gauge is only written when they change. */
  readonly #reported = new Map<string, RouterWeights>();

  constructor(opts: RouterManagerOptions) {
    this.#registry = opts.registry;
    this.#mode = opts.weightMode;
    this.#random = opts.random;
    this.#hooks = opts.metrics ?? NO_HOOKS;
    this.#register(opts.regular);
    if (opts.pd) this.#register(opts.pd);
    this.#hooks.onScrape?.(() => this.reportWeights());
  }

  #register(router: ManagedRouter): void {
    if (this.#routers.has(router.type)) throw new Error(`Two routers of type ${router.type}`);
    this.#routers.set(router.type, router);
  }

  async route(ctx: RequestContext): Promise<Answer> {
    return this.choose(ctx).router.route(ctx);
  }

  /** Picks the router for one request, or throws the gateway's answer for why there is none. */
  choose(ctx: RequestContext): RouterChoice {
    // SMG: in IGW mode the model selects the routers and workers, so /generate must name one.
    if (ctx.endpoint === 'generate' && ctx.model === UNKNOWN_MODEL_ID) {
      throw new GatewayError(
        'missing_model',
        "Field 'model' is required for /generate when serving multiple models",
      );
    }
    const { registered, available } = this.#count(ctx.model);
    if (ROUTER_ORDER.every((t) => totalOf(registered, t) === 0))
      throw this.#noWorkerError(ctx.model);
    // Reported under the model's label: a model no worker announces is served by the wildcard
    // workers alone, so every such name has the same weights, reported once as `other`.
    const weights = routerWeights(available, this.#mode);
    this.#report(ctx.modelLabel, weights);
    const eligible = (type: RouterType): boolean => this.#serves(type, ctx.endpoint);
    const point = ctx.routingKey === undefined ? this.#random.next() : stickyPoint(ctx.routingKey);
    const type = pickWeighted(weights, eligible, point);
    const router = type === undefined ? undefined : this.#routers.get(type);
    if (type === undefined || router === undefined) {
      throw this.#nothingEligibleError(ctx, registered, eligible);
    }
    this.#hooks.onChoice(type, ctx.modelLabel);
    return { router, weights };
  }

  /** The current weights of one model (all zero when it has no workers). */
  weightsFor(model: string): RouterWeights {
    return routerWeights(this.#count(model).available, this.#mode);
  }

  /**
   * Reports the current weights of every model with workers, and zeros once for each model
   * reported before that has none left. Meant for a gauge's `collect()`: weights also change
   * without traffic (a circuit opens, a worker leaves), which request-time reports miss.
   */
  reportWeights(): void {
    const models = new Set(this.#registry.models().map((m) => m.id));
    for (const model of this.#reported.keys()) models.add(model);
    for (const model of models) {
      const { registered, available } = this.#count(model);
      if (ROUTER_ORDER.every((t) => totalOf(registered, t) === 0)) {
        if (this.#reported.delete(model)) this.#hooks.onWeights(model, ZERO_WEIGHTS);
        continue;
      }
      this.#report(model, routerWeights(available, this.#mode), true);
    }
  }

  #report(model: string, weights: RouterWeights, always = false): void {
    const last = this.#reported.get(model);
    if (!always && last !== undefined && sameWeights(last, weights)) return;
    this.#reported.set(model, weights);
    this.#hooks.onWeights(model, weights);
  }

  /** Only registered routers take part, and never for an endpoint they cannot serve. */
  #serves(type: RouterType, endpoint: Endpoint): boolean {
    const router = this.#routers.get(type);
    if (router === undefined) return false;
    return router.supports ? router.supports(endpoint) : defaultSupports(type, endpoint);
  }

  /**
   * Registered and available workers of the model by type (model `unknown`: all workers), read
   * from the registry's maintained candidate sets: O(1) per request, whatever the fleet size.
   */
  #count(model: string): { registered: PoolCounts; available: PoolCounts } {
    const registered = emptyCounts();
    const available = emptyCounts();
    for (const type of WORKER_TYPES) {
      const candidates = this.#registry.candidates(model, type);
      registered[type] = candidates.all.length;
      available[type] = candidates.available.length;
    }
    return { registered, available };
  }

  #noWorkerError(model: string): GatewayError {
    // An empty gateway is still starting up: the regular router's retryable 503, not a 404.
    if (this.#registry.all().length === 0) {
      return new GatewayError('no_available_workers', 'No workers are registered');
    }
    return new GatewayError('model_not_found', `No worker available for model '${model}'`);
  }

  #nothingEligibleError(
    ctx: RequestContext,
    registered: PoolCounts,
    eligible: (t: RouterType) => boolean,
  ): GatewayError {
    const candidates = ROUTER_ORDER.filter(eligible).reduce(
      (n, t) => n + totalOf(registered, t),
      0,
    );
    if (candidates === 0) {
      // The model is served, but only by workers whose router cannot answer this endpoint
      // (embeddings to a PD-only model): waiting will not help, so not a 503.
      return new GatewayError(
        'model_not_found',
        `No worker for model '${ctx.model}' can serve ${ctx.endpoint} requests`,
      );
    }
    return new GatewayError(
      'no_available_workers',
      `No available workers for model '${ctx.model}'`,
    );
  }
}

function totalOf(counts: PoolCounts, type: RouterType): number {
  return ROUTER_WORKER_TYPES[type].reduce((n, t) => n + counts[t], 0);
}
