/**
 * Builds every long-lived part of a gateway from its validated config and wires the parts to
 * each other. Each part reads its own flags (`xFromConfig` beside its class); this file only
 * says which parts exist and what each is given. Owns no sockets: `gateway.ts` listens and
 * shuts down.
 */
import { modelParsers } from '../grpc/model-parsers.js';
import type { Agent } from 'undici';
import { concurrencyLimiterFromConfig } from '../admission/concurrency-limiter.js';
import type { ConcurrencyLimiter } from '../admission/concurrency-limiter.js';
import { prefillAdmissionFromConfig } from '../admission/prefill-admission.js';
import type { PrefillAdmission } from '../admission/prefill-admission.js';
import { decodeAdmissionFromConfig } from '../admission/decode-admission.js';
import { InProcessStore } from '../admission/store/in-process-store.js';
import type { AdmissionStore } from '../admission/store/types.js';
import { registerAdmissionStoreMetrics } from './admission-store-metrics.js';
import type { DecodeAdmission } from '../admission/decode-admission.js';
import type { GatewayConfig } from '../config/schema.js';
import { modelAliasMap } from '../config/smg-rules.js';
import { admissionHooks } from './metric-bindings.js';
import { bindFleetInfo } from './fleet-info-binding.js';
import { gaugeChild } from '../observability/label-cache.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { GatewayMetrics } from '../observability/metrics.js';
import type { RequestTracer } from '../observability/tracing.js';
import { policyReadsLoads } from '../policies/names.js';
import { PolicyRegistry, policyDepsFromConfig } from '../policies/registry.js';
import type { Router } from '../routing/router.js';
import { routerFromConfig } from './router-from-config.js';
import { HopMarker } from '../upstream/hop-marker.js';
import { upstreamPoolsFromConfig, type UpstreamPools } from '../upstream/pools.js';
import { mathRandom, systemClock, type Clock, type Random } from '@switchyard/kit';
import { circuitFactoryFromConfig } from '../workers/circuit-factory.js';
import { connectGuardFromConfig, guardedWorkerAgent } from '../workers/connect-guard.js';
import { EngineClients } from '../workers/engine-clients.js';
import type { GrpcConnector } from '../workers/grpc-connector.js';
import { connectEngine, detectEngineRuntime, type GuardLookup } from '../engine/connect.js';
import { loadTokenizerBundle } from '../tokenizer/bundle.js';
import { loadTokenizerDir } from '../tokenizer/load-dir.js';
import { TokenizerRegistry } from '../tokenizer/registry.js';
import { TokenizerCatalog } from '../tokenizer/catalog.js';
import { tokenizerLoadsFromConfig, type TokenizerLoadJobs } from '../tokenizer/load-jobs.js';
import { healthCheckerFromConfig, type HealthChecker } from '../workers/health.js';
import { tokenizerJobFromConfig } from '../workers/tokenizer-job.js';
import type { TokenizerLoaders, TokenizerRegistryLike } from '../workers/tokenizer-source.js';
import { loadMonitorFromConfig, type LoadMonitor } from '../workers/load-monitor.js';
import { WorkerRegistry } from '../workers/registry.js';
import { workerServiceFromConfig, type WorkerService } from '../workers/service.js';
import {
  targetGuardFromConfig,
  type HostLookup,
  type WorkerTargetGuard,
} from '../workers/target-guard.js';
import {
  kubernetesDiscoveryFromConfig,
  type KubernetesDiscovery,
  type KubernetesDiscoveryDeps,
} from '../discovery/kubernetes/discovery.js';
import type { KubeClient } from '../discovery/kubernetes/kube-client.js';
import { GatewayAuth } from './auth.js';
import { BodyBudget } from './body-budget.js';
import type { HistoryStore } from '../storage/history-store.js';
import { localHistoryStore } from '../storage/history-store-from-config.js';

export interface ComponentOptions {
  logger?: Logger;
  random?: Random;
  clock?: Clock;
  /** Resolves worker host names at registration and when connections open (tests inject one). */
  lookup?: HostLookup;
  /** Dials and detects gRPC engines (tests inject fakes); defaults to the engine clients. */
  grpc?: GrpcConnector;
  /** The model tokenizers of gRPC workers and their loaders (tests inject fakes). */
  tokenizers?: { tokenizers: TokenizerRegistryLike; loaders: TokenizerLoaders };
  /** Where admission claims are counted (startGateway opens the configured one); in-process if absent. */
  admissionStore?: AdmissionStore;
  /** `--service-discovery`: the API server to watch and timing knobs (tests point it at a fake). */
  kube?: Pick<KubernetesDiscoveryDeps, 'kubeConfig' | 'settleMs' | 'backoff'> & {
    /** The client library; startGateway loads it when `--service-discovery` is given. */
    client?: KubeClient | undefined;
  };
  /** `--enable-trace`'s tracer (startGateway loads it, since loading is async); none = untraced. */
  tracer?: RequestTracer | undefined;
  /**
   * The history store (startGateway opens the configured one); built here when absent, which
   * only the in-process backends (`memory`, `none`) can be.
   */
  history?: HistoryStore;
}

/**
 * The engine clients of src/engine: one channel per engine, runtime detection by HealthCheck.
 * Worker names resolve through the connect-time guard, as HTTP connections do.
 */
function engineConnector(clock: Clock, logger: Logger, lookup: GuardLookup): GrpcConnector {
  return {
    connect: (url, runtime) => connectEngine(url, runtime, { clock, logger, lookup }),
    detect: (url, hint, timeoutMs) => detectEngineRuntime(url, hint, timeoutMs, lookup),
  };
}

/** The tokenizer module: one registry per gateway, loading from a directory or a bundle. */
function tokenizerModule(
  clock: Clock,
  logger: Logger,
): { tokenizers: TokenizerRegistryLike; loaders: TokenizerLoaders } {
  return {
    tokenizers: new TokenizerRegistry({ clock, logger }),
    loaders: {
      loadDir: loadTokenizerDir,
      loadBundle: loadTokenizerBundle,
    },
  };
}

/**
 * Every long-lived part of one gateway: what `Gateway.internals` hands to tests and embedders.
 * HTTP handlers see the subset in `AppContext` (app-context.ts).
 */
export interface Components {
  readonly config: GatewayConfig;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Arms every timer the parts and handlers start; a ManualClock in tests. */
  readonly clock: Clock;
  registry: WorkerRegistry;
  pools: UpstreamPools;
  /** One engine client per gRPC worker URL: `engineClients.get(worker)`. */
  engineClients: EngineClients;
  /** Each gRPC model's tokenizer: `tokenizers.get(modelId)`. */
  tokenizers: TokenizerRegistryLike;
  /** The same tokenizers with SMG's ids, for the token routes (`/v1/tokenize`, `/v1/tokenizers`). */
  tokenizerCatalog: TokenizerCatalog;
  /** `POST /v1/tokenizers` and the `--tokenizer-path`/`--model-path` startup load. */
  tokenizerLoads: TokenizerLoadJobs;
  /** Calls to workers outside the pools (probes, load polls, fan-outs); same connect-time guard. */
  workerDispatcher: Agent;
  policies: PolicyRegistry;
  router: Router;
  workers: WorkerService;
  /** Judges worker URLs; the gateway adds its own listeners once they are bound. */
  targets: WorkerTargetGuard;
  health: HealthChecker;
  loadMonitor: LoadMonitor | undefined;
  /** `--service-discovery`'s pod watcher; `gateway.ts` starts it once the listeners are bound. */
  discovery: KubernetesDiscovery | undefined;
  limiter: ConcurrencyLimiter | undefined;
  prefillAdmission: PrefillAdmission | undefined;
  decodeAdmission: DecodeAdmission | undefined;
  /** Where decode claims and prefill slots are counted: this process, the cluster primary, or Redis. */
  admissionStore: AdmissionStore;
  /** `--model-alias`, alias -> canonical model. */
  aliases: ReadonlyMap<string, string>;
  /** Which key opens which route, and which client credentials are the gateway's own. */
  auth: GatewayAuth;
  /** This gateway's `Via` pseudonym: added to every forwarded request, refused when it comes back. */
  hop: HopMarker;
  /** `--max-buffered-body-bytes`: every body read (inference and admin) is charged to it. */
  bodyBudget: BodyBudget;
  /** `--enable-trace`: spans of each inference request; undefined when tracing is off. */
  tracer: RequestTracer | undefined;
  /** `--history-backend`: stored responses, conversations and their items. */
  history: HistoryStore;
  /** Set once shutdown begins: readiness answers 503 draining. */
  draining: boolean;
}

export function buildComponents(config: GatewayConfig, opts: ComponentOptions = {}): Components {
  const logger = opts.logger ?? createLogger({ level: config.logLevel, json: config.logJson });
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? mathRandom;
  const metrics = new GatewayMetrics();
  const registry = new WorkerRegistry(metrics);
  // Registration judges a worker's address once; a name can resolve elsewhere later (DNS
  // rebinding), so every connection to a worker is judged again when it opens.
  const connectGuard = connectGuardFromConfig(config, { lookup: opts.lookup, logger, clock });
  const pools = upstreamPoolsFromConfig(config, { lookup: connectGuard.lookup });
  const workerDispatcher = guardedWorkerAgent(connectGuard);
  const policyDeps = policyDepsFromConfig(config, { random, clock, metrics, logger });
  const policies = new PolicyRegistry(config.policy, policyDeps, registry);
  const hooks = admissionHooks(metrics);
  const admissionStore = opts.admissionStore ?? new InProcessStore();
  const history = opts.history ?? localHistoryStore(config);
  if (!history)
    throw new Error(
      `--history-backend ${config.historyBackend} connects first: open it with historyStoreFromConfig and pass it as the history option`,
    );
  registerAdmissionStoreMetrics(metrics.registry, admissionStore);
  const prefillAdmission = prefillAdmissionFromConfig(config, {
    clock,
    hooks: hooks.prefill,
    store: admissionStore,
  });
  prefillAdmission?.attach(registry);
  const decodeAdmission = decodeAdmissionFromConfig(config, {
    clock,
    hooks: hooks.decode,
    store: admissionStore,
  });
  decodeAdmission?.attach(registry);
  bindFleetInfo(metrics.fleetInfo, registry, {
    decodeGated: decodeAdmission !== undefined,
    prefillLimit: prefillAdmission ? config.prefillMaxInflightRequestsPerWorker : 0,
  });
  const targets = targetGuardFromConfig(config, { lookup: opts.lookup });
  const engineClients = new EngineClients(
    opts.grpc ?? engineConnector(clock, logger, connectGuard.lookup),
  );
  engineClients.attach(registry);
  const { tokenizers, loaders } = opts.tokenizers ?? tokenizerModule(clock, logger);
  const router = routerFromConfig(config, {
    registry,
    pools,
    metrics,
    logger,
    random,
    policies,
    policyDeps,
    prefillAdmission,
    decodeAdmission,
    clock,
    engineClients,
    tokenizers,
    parsers: modelParsers({
      toolCallParser: config.toolCallParser,
      reasoningParser: config.reasoningParser,
      onUnparsed: (parser) => metrics.toolCallParseFailures.inc({ parser }),
    }),
  });
  const tokenizerCatalog = new TokenizerCatalog(tokenizers);
  const tokenizerLoads = tokenizerLoadsFromConfig(config, {
    catalog: tokenizerCatalog,
    loadDir: (dir, o) => loaders.loadDir(dir, o),
    clock,
    logger,
  });
  const tokenizerJob = tokenizerJobFromConfig(config, {
    tokenizers,
    loaders,
    registry,
    clients: engineClients,
    logger,
  });
  const workers = workerServiceFromConfig(config, {
    engineClients,
    onActivated: tokenizerJob && ((w) => void tokenizerJob.submit(w)),
    registry,
    pools,
    logger,
    makeCircuit: circuitFactoryFromConfig(config, { clock, metrics }),
    targets,
    dispatcher: workerDispatcher,
    clock,
  });
  const health = healthCheckerFromConfig(config, {
    registry,
    metrics,
    logger,
    removeWorker: (w) => workers.remove(w.id, w.url),
    dispatcher: workerDispatcher,
    engineClients,
    clock,
  });
  const loadMonitor = loadMonitorFromConfig(config, {
    registry,
    metrics,
    clock,
    dispatcher: workerDispatcher,
    engineClients,
    policyReadsLoads: policyReadsLoads(config.policy, config),
  });
  const limiter = concurrencyLimiterFromConfig(config, { clock, hooks: hooks.limiter });
  const discovery = kubernetesDiscoveryFromConfig(config, {
    registry,
    workers,
    metrics,
    logger,
    clock,
    random,
    ...opts.kube,
  });
  return {
    config,
    logger,
    metrics,
    clock,
    registry,
    pools,
    engineClients,
    tokenizers,
    tokenizerCatalog,
    tokenizerLoads,
    workerDispatcher,
    policies,
    router,
    workers,
    targets,
    health,
    loadMonitor,
    discovery,
    limiter,
    prefillAdmission,
    decodeAdmission,
    admissionStore,
    aliases: modelAliasMap(config.modelAlias),
    auth: new GatewayAuth(config.apiKey, config.controlPlaneApiKeys),
    hop: new HopMarker(),
    bodyBudget: new BodyBudget(
      config.maxBufferedBodyBytes,
      gaugeChild(metrics.httpBufferedBodyBytes, {}),
    ),
    tracer: opts.tracer,
    history,
    draining: false,
  };
}
