/** What every HTTP handler may use: the gateway's parts, wired once at startup. */
import type { Dispatcher } from 'undici';
import type { ConcurrencyLimiter } from '../admission/concurrency-limiter.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Router } from '../routing/router.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { WorkerService } from '../workers/service.js';
import type { GatewayAuth } from './auth.js';
import type { BodyBudget } from './body-budget.js';
import type { HopMarker } from '../upstream/hop-marker.js';

export interface AppContext {
  readonly config: GatewayConfig;
  readonly registry: WorkerRegistry;
  readonly workers: WorkerService;
  readonly router: Router;
  readonly pools: UpstreamPools;
  /** The guarded Agent for calls to workers made outside the pools (fan-outs, probes). */
  readonly workerDispatcher: Dispatcher;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  readonly aliases: ReadonlyMap<string, string>;
  /** Which key opens which route, and which client credentials are the gateway's own. */
  readonly auth: GatewayAuth;
  /** This gateway's `Via` pseudonym: added to every forwarded request, refused when it comes back. */
  readonly hop: HopMarker;
  /** `--max-concurrent-requests`, when set: gates the inference routes. */
  readonly limiter: ConcurrencyLimiter | undefined;
  /** `--max-buffered-body-bytes`: every body read (inference and admin) is charged to it. */
  readonly bodyBudget: BodyBudget;
  /** Set once shutdown begins: readiness answers 503 draining. */
  draining: boolean;
}
