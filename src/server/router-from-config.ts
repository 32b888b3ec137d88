/**
 * The router of the routing mode: regular, PD (`--pd-disaggregation`), or both behind the IGW
 * manager (`--enable-igw`), which picks one per request by the workers each can use.
 */
import type { DecodeAdmission } from '../admission/decode-admission.js';
import type { PrefillAdmission } from '../admission/prefill-admission.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { GrpcPdRouter } from '../pd/grpc/grpc-pd-router.js';
import { PdRouter } from '../pd/pd-router.js';
import { PolicyRegistry, type PolicyDeps } from '../policies/registry.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { Clock, Random } from '@switchyard/kit';
import type { WorkerRegistry } from '../workers/registry.js';
import { ConnectionSplitRouter } from '../grpc/connection-split.js';
import { GrpcRouter, type GrpcRouterDeps } from '../grpc/grpc-router.js';
import { RegularRouter } from '../routing/regular-router.js';
import { retryConfigFrom } from '../routing/retry.js';
import type { Router } from '../routing/router.js';
import { RouterManager } from '../routing/router-manager.js';
import { routerChoiceMetricHooks } from '../routing/router-metrics.js';

export interface RouterDeps {
  registry: WorkerRegistry;
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  logger: Logger;
  random: Random;
  /** Arms the routers' timers: retry backoff, upstream deadlines, PD retirement. */
  clock: Clock;
  /** `--policy`'s registry, the regular router's. */
  policies: PolicyRegistry;
  /** What the PD legs' policy registries are built with. */
  policyDeps: PolicyDeps;
  prefillAdmission: PrefillAdmission | undefined;
  decodeAdmission: DecodeAdmission | undefined;
  /** gRPC workers' engine clients and their models' tokenizers, for the gRPC pipeline. */
  engineClients: GrpcRouterDeps['engines'];
  tokenizers: GrpcRouterDeps['tokenizers'];
  /** Tool-call and reasoning parsers of gRPC chat answers, by model. */
  parsers?: GrpcRouterDeps['parsers'];
}

export function routerFromConfig(config: GatewayConfig, deps: RouterDeps): Router {
  const { registry, metrics, random, policyDeps } = deps;
  const common = {
    registry,
    pools: deps.pools,
    metrics,
    logger: deps.logger,
    random,
    clock: deps.clock,
    retry: retryConfigFrom(config),
    requestTimeoutMs: config.requestTimeoutSecs * 1000,
    // SMG: an overload shed's Retry-After is the load-monitor interval.
    overloadRetryAfterSecs: config.loadMonitorInterval,
  };
  const hasTokenizer = (model: string): boolean => deps.tokenizers.get(model) !== undefined;
  // PD traffic goes to HTTP or gRPC pairs by the pairs each can form. Both routers share the
  // legs' policy registries and the admission controllers, so their requests queue and claim
  // against the same counters. A leg without its own policy flag uses --policy (SMG).
  const makePd = (): ConnectionSplitRouter => {
    const pd = {
      ...common,
      prefillAdmission: deps.prefillAdmission,
      decodeAdmission: deps.decodeAdmission,
      prefillPolicies: new PolicyRegistry(
        config.prefillPolicy ?? config.policy,
        policyDeps,
        registry,
      ),
      decodePolicies: new PolicyRegistry(
        config.decodePolicy ?? config.policy,
        policyDeps,
        registry,
      ),
    };
    return new ConnectionSplitRouter(
      'http-pd',
      registry,
      new PdRouter(pd),
      new GrpcPdRouter({
        ...pd,
        engines: deps.engineClients,
        tokenizers: deps.tokenizers,
        parsers: deps.parsers,
      }),
      random,
      hasTokenizer,
    );
  };
  // Regular traffic goes to the HTTP relay or the gRPC pipeline by the workers each can use.
  const makeRegular = (): ConnectionSplitRouter =>
    new ConnectionSplitRouter(
      'http-regular',
      registry,
      new RegularRouter({ ...common, policies: deps.policies }),
      new GrpcRouter({
        ...common,
        policies: deps.policies,
        engines: deps.engineClients,
        tokenizers: deps.tokenizers,
        parsers: deps.parsers,
      }),
      random,
      hasTokenizer,
    );
  if (!config.enableIgw) {
    return config.pdDisaggregation ? makePd() : makeRegular();
  }
  return new RouterManager({
    registry,
    regular: makeRegular(),
    pd: makePd(),
    weightMode: config.pdWeightMode,
    random,
    metrics: routerChoiceMetricHooks(metrics),
  });
}
