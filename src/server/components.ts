/**
 * Builds every long-lived part of a gateway from its validated config and wires the parts to
 * each other. Owns no sockets: `gateway.ts` listens and shuts down.
 */
import { Agent } from 'undici';
import { ConcurrencyLimiter } from '../admission/concurrency-limiter.js';
import { PrefillAdmission } from '../admission/prefill-admission.js';
import { DecodeAdmission } from '../admission/decode-admission.js';
import type { GatewayConfig } from '../config/schema.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { PolicyRegistry, policyDepsFromConfig } from '../policies/registry.js';
import { RegularRouter } from '../routing/regular-router.js';
import type { RetryConfig } from '../routing/retry.js';
import type { Router } from '../routing/router.js';
import { RouterManager } from '../routing/router-manager.js';
import { PdRouter } from '../pd/pd-router.js';
import { UpstreamPools } from '../upstream/pools.js';
import { systemClock, type Clock } from '../util/clock.js';
import { mathRandom, type Random } from '@switchyard/kit';
import { circuitFactory } from '../workers/circuit-factory.js';
import { HealthChecker } from '../workers/health.js';
import { loadMonitorFromConfig, type LoadMonitor } from '../workers/load-monitor.js';
import { WorkerRegistry } from '../workers/registry.js';
import { WorkerService } from '../workers/service.js';
import { WorkerConnectGuard } from '../workers/connect-guard.js';
import { WorkerTargetGuard, type HostLookup } from '../workers/target-guard.js';

export interface ComponentOptions {
  logger?: Logger;
  random?: Random;
  clock?: Clock;
  /** Resolves worker host names at registration and when connections open (tests inject one). */
  lookup?: HostLookup;
}

export interface Components {
  logger: Logger;
  metrics: GatewayMetrics;
  registry: WorkerRegistry;
  pools: UpstreamPools;
  /** Calls to workers outside the pools (probes, load polls, fan-outs); same connect-time guard. */
  workerDispatcher: Agent;
  policies: PolicyRegistry;
  router: Router;
  workers: WorkerService;
  /** Judges worker URLs; the gateway adds its own listeners once they are bound. */
  targets: WorkerTargetGuard;
  health: HealthChecker;
  loadMonitor: LoadMonitor | undefined;
  limiter: ConcurrencyLimiter | undefined;
  prefillAdmission: PrefillAdmission | undefined;
  decodeAdmission: DecodeAdmission | undefined;
}

export function retryConfigFrom(c: GatewayConfig): RetryConfig {
  return {
    maxAttempts: c.disableRetries ? 1 : Math.max(1, c.retryMaxRetries),
    initialBackoffMs: c.retryInitialBackoffMs,
    maxBackoffMs: c.retryMaxBackoffMs,
    multiplier: c.retryBackoffMultiplier,
    jitter: c.retryJitterFactor,
  };
}

export function buildComponents(config: GatewayConfig, opts: ComponentOptions = {}): Components {
  const logger = opts.logger ?? createLogger({ level: config.logLevel, json: config.logJson });
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? mathRandom;
  const metrics = new GatewayMetrics();
  const registry = new WorkerRegistry(metrics);
  // Registration judges a worker's address once; a name can resolve elsewhere later (DNS
  // rebinding), so every connection to a worker is judged again when it opens.
  const connectGuard = new WorkerConnectGuard({
    allowCidrs: config.workerAllowCidr,
    lookup: opts.lookup,
    logger,
    clock,
  });
  const pools = new UpstreamPools({
    idleTimeoutMs: config.upstreamPoolIdleTimeoutSecs * 1000,
    requestTimeoutMs: config.requestTimeoutSecs * 1000,
    lookup: connectGuard.lookup,
  });
  const workerDispatcher = new Agent({ connect: { lookup: connectGuard.lookup, timeout: 10_000 } });
  const policyDeps = policyDepsFromConfig(config, { random, clock, metrics, logger });
  const policies = new PolicyRegistry(config.policy, policyDeps, registry);
  const common = {
    registry,
    pools,
    metrics,
    logger,
    random,
    retry: retryConfigFrom(config),
    requestTimeoutMs: config.requestTimeoutSecs * 1000,
    overloadRetryAfterSecs: config.loadMonitorInterval,
  };
  const prefillAdmission =
    config.prefillMaxInflightRequestsPerWorker > 0
      ? new PrefillAdmission(
          {
            limit: config.prefillMaxInflightRequestsPerWorker,
            queueSize: config.prefillQueueSize,
            queueTimeoutMs: config.prefillQueueTimeoutSecs * 1000,
          },
          registry,
          metrics,
          clock,
        )
      : undefined;
  const pdCapable = config.pdDisaggregation || config.enableIgw;
  const decodeAdmission =
    pdCapable && !config.disablePdDecodeAdmission
      ? new DecodeAdmission({
          waitSecs: config.pdAdmissionWaitSecs,
          clock,
          hooks: {
            onWait: () => metrics.pdAdmissionWaits.inc(),
            onShed: (_worker, reason) => metrics.pdAdmissionSheds.inc({ reason }),
            onClaimedChange: (worker, claimed) =>
              metrics.pdAdmissionClaimedRooms.set({ worker }, claimed),
            onWorkerGone: (worker) => metrics.pdAdmissionClaimedRooms.remove({ worker }),
          },
        })
      : undefined;
  decodeAdmission?.attach(registry);
  const makePd = (): PdRouter =>
    new PdRouter({
      ...common,
      prefillAdmission,
      decodeAdmission,
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
    });
  let router: Router;
  if (config.enableIgw) {
    const manager = new RouterManager({
      registry,
      regular: new RegularRouter({ ...common, policies }),
      pd: makePd(),
      weightMode: config.pdWeightMode,
      random,
      metrics: {
        onChoice: (routerType, model) =>
          metrics.routerSelection.inc({ router_type: routerType, model }),
        onWeights: (model, weights) => {
          for (const [routerType, value] of Object.entries(weights))
            metrics.routerWeight.set({ model, router_type: routerType }, value);
        },
      },
    });
    metrics.refreshRouterWeights = () => manager.reportWeights();
    router = manager;
  } else {
    router = config.pdDisaggregation ? makePd() : new RegularRouter({ ...common, policies });
  }
  const makeCircuit = circuitFactory(
    {
      failureThreshold: config.cbFailureThreshold,
      successThreshold: config.cbSuccessThreshold,
      timeoutMs: config.cbTimeoutDurationSecs * 1000,
      disabled: config.disableCircuitBreaker,
    },
    clock,
    metrics,
  );
  const targets = new WorkerTargetGuard({
    allowCidrs: config.workerAllowCidr,
    lookup: opts.lookup,
  });
  const workers = new WorkerService(
    registry,
    pools,
    {
      startupDelaySecs: config.workerStartupDelay,
      startupCheckIntervalSecs: config.workerStartupCheckInterval,
      startupTimeoutSecs: config.workerStartupTimeoutSecs,
      healthEndpoint: config.healthCheckEndpoint,
      healthTimeoutSecs: config.healthCheckTimeoutSecs,
      healthDisabled: config.disableHealthCheck,
      drainSettleSecs: config.drainSettleSecs,
      defaultApiKey: config.apiKey,
      dpAware: config.dpAware,
    },
    logger,
    makeCircuit,
    targets,
    workerDispatcher,
  );
  const health = new HealthChecker(
    {
      intervalSecs: config.healthCheckIntervalSecs,
      timeoutSecs: config.healthCheckTimeoutSecs,
      endpoint: config.healthCheckEndpoint,
      successThreshold: config.healthSuccessThreshold,
      failureThreshold: config.healthFailureThreshold,
      disabled: config.disableHealthCheck,
      removeUnhealthy: config.removeUnhealthyWorkers,
    },
    registry,
    metrics,
    logger,
    (w) => workers.remove(w.id, w.url),
    workerDispatcher,
  );
  const loadMonitor = loadMonitorFromConfig(config, {
    registry,
    metrics,
    clock,
    dispatcher: workerDispatcher,
  });
  const limiter =
    config.maxConcurrentRequests > 0
      ? new ConcurrencyLimiter(
          {
            capacity: config.maxConcurrentRequests,
            queueSize: config.queueSize,
            queueTimeoutMs: config.queueTimeoutSecs * 1000,
            // SMG: "Unset or 0 = no refill": the limit is then pure concurrency (permits return when responses end).
            refillPerSec:
              config.rateLimitTokensPerSecond === 0 ? undefined : config.rateLimitTokensPerSecond,
          },
          metrics,
          clock,
        )
      : undefined;
  return {
    logger,
    metrics,
    registry,
    pools,
    workerDispatcher,
    policies,
    router,
    workers,
    targets,
    health,
    loadMonitor,
    limiter,
    prefillAdmission,
    decodeAdmission,
  };
}
