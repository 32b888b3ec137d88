/**
 * The worker lifecycle behind `/workers` and `--worker-urls`: background registration jobs
 * (probe until the worker answers, discover its metadata, activate), updates, and removal
 * through `draining`. Replies and job records follow SMG's shapes (`worker/service.rs`).
 * An HTTP worker is probed at its health endpoint and fingerprinted over HTTP; a gRPC worker is
 * probed by runtime detection (each runtime's `HealthCheck`) and described by `GetModelInfo` /
 * `GetServerInfo` through its engine client (grpc-connector.ts).
 */
import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { Lease } from '../util/lease.js';
import { sleep, systemClock, type Clock } from '@switchyard/kit';
import { BACKGROUND } from '../util/every.js';
import { discoverHttpWorker, type DiscoveredMetadata } from './discovery/metadata.js';
import { discoverGrpcWorker } from './discovery/grpc-registration.js';
import { StartupWait } from './discovery/startup-wait.js';
import type { EngineClients } from './engine-clients.js';
import type { WorkerRegistry } from './registry.js';
import type { WorkerPatch, WorkerSpec } from './spec.js';
import { Worker } from './worker.js';
import type { CircuitFactory } from './circuit-factory.js';
import type { WorkerTargetGuard } from './target-guard.js';

export type JobType = 'AddWorker' | 'UpdateWorker' | 'RemoveWorker';
export interface JobStatus {
  job_type: JobType;
  worker_url: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  message: string;
  timestamp: number;
}

export interface RegistrationConfig {
  startupDelaySecs: number;
  startupCheckIntervalSecs: number;
  startupTimeoutSecs: number;
  healthEndpoint: string;
  healthTimeoutSecs: number;
  healthDisabled: boolean;
  drainSettleSecs: number;
  /**
   * Gateway `--api-key`, the key of every worker registered without its own (SMG behaviour). A
   * worker key always replaces the client's Authorization upstream (upstream/headers.ts).
   */
  defaultApiKey?: string | undefined;
  /** `--dp-aware`: expand each worker into one logical worker per data-parallel rank. */
  dpAware: boolean;
}

export interface WorkerServiceDeps {
  registry: WorkerRegistry;
  pools: UpstreamPools;
  logger: Logger;
  makeCircuit: CircuitFactory;
  targets: WorkerTargetGuard;
  dispatcher: Dispatcher;
  /** The gRPC engine clients: registration dials and describes gRPC workers through them. */
  engineClients: EngineClients;
  /** Called once per registration, after its workers went ready (the tokenizer job listens). */
  onActivated?: ((worker: Worker) => void) | undefined;
  clock?: Clock;
}

/** The startup, health-probe, drain, `--api-key` and `--dp-aware` flags registration reads. */
export function workerServiceFromConfig(
  c: Pick<
    GatewayConfig,
    | 'workerStartupDelay'
    | 'workerStartupCheckInterval'
    | 'workerStartupTimeoutSecs'
    | 'healthCheckEndpoint'
    | 'healthCheckTimeoutSecs'
    | 'disableHealthCheck'
    | 'drainSettleSecs'
    | 'apiKey'
    | 'dpAware'
  >,
  deps: WorkerServiceDeps,
): WorkerService {
  return new WorkerService(
    deps.registry,
    deps.pools,
    {
      startupDelaySecs: c.workerStartupDelay,
      startupCheckIntervalSecs: c.workerStartupCheckInterval,
      startupTimeoutSecs: c.workerStartupTimeoutSecs,
      healthEndpoint: c.healthCheckEndpoint,
      healthTimeoutSecs: c.healthCheckTimeoutSecs,
      healthDisabled: c.disableHealthCheck,
      drainSettleSecs: c.drainSettleSecs,
      defaultApiKey: c.apiKey,
      dpAware: c.dpAware,
    },
    deps.logger,
    deps.makeCircuit,
    deps.targets,
    deps.dispatcher,
    deps.clock ?? systemClock,
    deps.engineClients,
    deps.onActivated,
  );
}

export class WorkerService {
  readonly #jobs = new Map<string, JobStatus>();
  readonly #pendingSpecs = new Map<string, WorkerSpec>();
  readonly #cancel = new Map<string, AbortController>();
  readonly #closing = new AbortController();
  /** Each registered worker's reference on its origin's connection pool. */
  readonly #poolLeases = new Map<Worker, Lease>();

  constructor(
    private readonly registry: WorkerRegistry,
    private readonly pools: UpstreamPools,
    private readonly config: RegistrationConfig,
    private readonly logger: Logger,
    private readonly makeCircuit: CircuitFactory,
    private readonly targets: WorkerTargetGuard,
    /** The gateway's guarded worker Agent (connect-guard.ts), for registration probes. */
    private readonly dispatcher: Dispatcher,
    private readonly clock: Clock = systemClock,
    private readonly engineClients?: EngineClients,
    private readonly onActivated?: (worker: Worker) => void,
  ) {}

  /**
   * Why this worker URL may not be registered (its resolved addresses, the gateway's own
   * listeners, `--worker-allow-cidr`), or undefined. A name that does not resolve yet passes
   * here; the registration job checks again before it contacts the worker.
   */
  async refusal(url: string): Promise<string | undefined> {
    const check = await this.targets.check(url);
    return check.kind === 'refused' ? check.reason : undefined;
  }

  job(id: string): JobStatus | undefined {
    return this.#jobs.get(id);
  }

  /** Drops the record of a failed registration. */
  forget(id: string): void {
    this.#jobs.delete(id);
  }

  pendingSpec(id: string): WorkerSpec | undefined {
    return this.#pendingSpecs.get(id);
  }

  /** Queues registration. Returns the id, or `conflict` when the URL is known already. */
  add(spec: WorkerSpec): { id: string; conflict: boolean } {
    const existing = this.registry.idForUrl(spec.url);
    if (existing !== undefined && (this.registry.get(existing) || this.#cancel.has(existing))) {
      return { id: existing, conflict: true };
    }
    const id = this.registry.reserveId(spec.url);
    this.#runJob(id, spec, 'AddWorker');
    return { id, conflict: false };
  }

  /** Re-registers with a full new spec (same URL); the new worker replaces the old on success. */
  update(id: string, spec: WorkerSpec): void {
    this.#runJob(id, spec, 'UpdateWorker');
  }

  patch(worker: Worker, patch: WorkerPatch): void {
    if (patch.priority !== undefined) worker.priority = patch.priority;
    if (patch.cost !== undefined) worker.cost = patch.cost;
    if (patch.labels !== undefined) worker.labels = { ...worker.labels, ...patch.labels };
    if (patch.api_key !== undefined) worker.apiKey = patch.api_key;
    if (patch.health !== undefined) {
      // The health checker reads the overrides from the spec at every probe.
      const current = (worker.spec.health ?? {}) as Record<string, unknown>;
      worker.spec = { ...worker.spec, health: { ...current, ...patch.health } };
    }
    this.#setJob(worker.id, 'UpdateWorker', worker.url, 'completed', 'Worker updated');
  }

  /**
   * Starts removal: draining at once, gone from the registry after the settle period. The DP
   * ranks of one engine share its URL and leave together.
   */
  remove(workerId: string, url: string): void {
    this.#cancel.get(workerId)?.abort();
    const worker = this.registry.get(workerId);
    if (!worker) {
      this.#pendingSpecs.delete(workerId);
      this.#setJob(workerId, 'RemoveWorker', url, 'completed', 'Pending registration cancelled');
      return;
    }
    const group =
      worker.dpRank === undefined
        ? [worker]
        : this.registry.all().filter((w) => w.url === worker.url);
    for (const w of group) this.registry.setStatus(w, 'draining');
    const settle =
      (worker.spec.health as { drain_settle_secs?: number } | undefined)?.drain_settle_secs ??
      this.config.drainSettleSecs;
    this.#setJob(workerId, 'RemoveWorker', url, 'processing', 'Worker draining');
    const finish = (): void => {
      for (const w of group) {
        if (this.registry.get(w.id) !== w) continue;
        this.registry.remove(w.id);
        this.#releasePool(w);
      }
      this.#setJob(workerId, 'RemoveWorker', url, 'completed', 'Worker removed');
    };
    if (settle === 0) finish();
    else this.clock.setTimer(settle * 1000, finish, BACKGROUND);
  }

  #releasePool(worker: Worker): void {
    this.#poolLeases.get(worker)?.release();
    this.#poolLeases.delete(worker);
  }

  /** Stops every pending registration (shutdown). */
  close(): void {
    this.#closing.abort();
  }

  #setJob(
    workerId: string,
    type: JobType,
    url: string,
    status: JobStatus['status'],
    message: string,
  ): void {
    this.#jobs.set(workerId, {
      job_type: type,
      worker_url: url,
      status,
      message,
      timestamp: Math.floor(Date.now() / 1000),
    });
  }

  #runJob(workerId: string, spec: WorkerSpec, type: JobType): void {
    const cancel = new AbortController();
    this.#cancel.get(workerId)?.abort();
    this.#cancel.set(workerId, cancel);
    this.#pendingSpecs.set(workerId, spec);
    this.#setJob(workerId, type, spec.url, 'pending', 'Worker registration queued');
    const signal = AbortSignal.any([cancel.signal, this.#closing.signal]);
    this.#register(workerId, spec, type, signal)
      .then(() => this.#setJob(workerId, type, spec.url, 'completed', 'Worker registered'))
      .catch((err: unknown) => {
        // A cancelled job (DELETE or shutdown) already has its final record.
        if (signal.aborted) return;
        const message = String((err as Error).message ?? err);
        this.logger.warn({ worker: spec.url, err: message }, 'worker registration failed');
        this.#setJob(workerId, type, spec.url, 'failed', message);
      })
      .finally(() => {
        if (this.#cancel.get(workerId) === cancel) {
          this.#cancel.delete(workerId);
          this.#pendingSpecs.delete(workerId);
        }
      });
  }

  /**
   * Re-checks the target before the job contacts it: a name may resolve differently now than
   * when the registration was accepted. Throws (failing the job) when it is refused.
   */
  async #assertAllowedTarget(url: string): Promise<void> {
    const reason = await this.refusal(url);
    if (reason !== undefined) throw new Error(`Worker URL refused: ${reason}`);
  }

  async #register(
    workerId: string,
    spec: WorkerSpec,
    type: JobType,
    signal: AbortSignal,
  ): Promise<void> {
    const cfg = this.config;
    const apiKey = spec.api_key ?? cfg.defaultApiKey;
    if (cfg.startupDelaySecs > 0) await sleep(cfg.startupDelaySecs * 1000, signal, this.clock);
    this.#setJob(workerId, type, spec.url, 'processing', 'Waiting for the worker to answer');
    const grpc = spec.connection_mode === 'grpc';
    const probe = {
      healthTimeoutMs: cfg.healthTimeoutSecs * 1000,
      healthDisabled: spec.health?.disable_health_check ?? cfg.healthDisabled,
      wait: new StartupWait(spec.url, cfg, this.clock, signal),
      assertAllowed: (url: string) => this.#assertAllowedTarget(url),
      signal,
    };
    let meta: DiscoveredMetadata;
    try {
      meta = grpc
        ? await discoverGrpcWorker(spec, {
            ...probe,
            clients: this.engineClients,
            logger: this.logger,
          })
        : await discoverHttpWorker(spec, {
            ...probe,
            apiKey,
            dispatcher: this.dispatcher,
            healthEndpoint: cfg.healthEndpoint,
          });
      signal.throwIfAborted();
    } catch (err) {
      // A client dialled for a worker that never registered is closed (unless a registered
      // worker at the same URL, the one being updated, still uses it).
      if (grpc) this.engineClients?.release(spec.url);
      throw err;
    }
    const labels = { ...meta.labels, ...spec.labels };
    const dpSize = this.config.dpAware ? dpSizeOf(spec.dp_size, labels.dp_size) : undefined;
    const ranks: (number | undefined)[] =
      dpSize === undefined ? [undefined] : Array.from({ length: dpSize }, (_, r) => r);
    let first: Worker | undefined;
    for (const rank of ranks) {
      // Rank 0 keeps the registration's id; other ranks get ids reserved for `url@rank`.
      const id =
        rank === undefined || rank === 0
          ? workerId
          : this.registry.reserveId(`${spec.url}@${rank}`);
      const key = rank === undefined ? spec.url : `${spec.url}@${rank}`;
      const worker = new Worker({
        id,
        url: spec.url,
        type: spec.worker_type,
        connectionMode: spec.connection_mode,
        runtime: meta.runtime,
        models: spec.models.length > 0 ? spec.models.map((m) => m.id) : meta.models,
        labels,
        priority: spec.priority,
        cost: spec.cost,
        apiKey,
        bootstrapPort: spec.bootstrap_port,
        kvConnector: spec.kv_connector,
        kvRole: spec.kv_role,
        kvEngineId: spec.kv_engine_id,
        spec,
        circuit: this.makeCircuit(key),
        dpRank: rank,
        dpSize,
      });
      first ??= worker;
      const previous = this.registry.get(id);
      // A gRPC worker talks through its engine client, not an HTTP pool.
      if (!grpc) this.#poolLeases.set(worker, this.pools.acquire(worker.origin));
      this.registry.add(worker);
      if (previous) this.#releasePool(previous);
      // Registration already proved the worker answers: activate it (SMG's final workflow step).
      this.registry.setStatus(worker, 'ready');
    }
    this.logger.info(
      { worker: spec.url, runtime: meta.runtime, models: meta.models, dpSize },
      'worker registered',
    );
    if (first) this.onActivated?.(first);
  }
}

/** DP size from the spec, else the discovered `dp_size` label; 1 when neither says more. */
function dpSizeOf(given: number | undefined, label: string | undefined): number {
  const n = given ?? Number(label ?? '1');
  return Number.isInteger(n) && n >= 1 ? n : 1;
}
