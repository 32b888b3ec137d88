/**
 * Periodic health probes per worker, driving the status machine in `health-state.ts`. Each
 * worker has its own timer chain (probes never overlap for one worker); a removed worker's
 * chain stops. An HTTP worker is probed at `--health-check-endpoint`; a gRPC worker by its
 * engine's own `HealthCheck` RPC (SMG `grpc_health_check`): healthy is the reply's `healthy`,
 * and an RPC error or a timeout is a failure, fed to the same state machine.
 */
import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../config/schema.js';
import { systemClock, type Clock, type Timer } from '@switchyard/kit';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { probeHealth } from './discovery/metadata.js';
import { freshCounters, nextHealthStatus, type HealthCounters } from './health-state.js';
import type { WorkerRegistry } from './registry.js';
import type { HealthOverride } from './spec.js';
import type { Worker } from './worker.js';
import { BACKGROUND } from '../util/every.js';
import type { EngineClients } from './engine-clients.js';

/** Durations in milliseconds; the flags and worker overrides in seconds are converted by the caller. */
export interface HealthConfig {
  intervalMs: number;
  timeoutMs: number;
  endpoint: string;
  successThreshold: number;
  failureThreshold: number;
  disabled: boolean;
  removeUnhealthy: boolean;
}

/**
 * `--health-check-interval-secs 0` is accepted as SMG accepts it. SMG then re-probes a worker as
 * soon as its previous probe ends (worker/manager.rs: the next deadline is now + 0), so 0 means
 * "as often as possible". Here that is once a second: a 0 ms timer chain would flood a worker
 * that refuses connections with probes and spin the event loop.
 */
export const MIN_PROBE_DELAY_MS = 1000;

export function probeDelayMs(intervalMs: number): number {
  return Math.max(MIN_PROBE_DELAY_MS, intervalMs);
}

interface Tracked {
  timer: Timer | undefined;
  counters: HealthCounters;
  stopped: boolean;
}

export interface HealthCheckerDeps {
  registry: WorkerRegistry;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Called when a worker reaches `failed` and `--remove-unhealthy-workers` is on. */
  removeWorker: (worker: Worker) => void;
  dispatcher: Dispatcher;
  /** gRPC workers' clients, for their `HealthCheck` probes. */
  engineClients?: EngineClients | undefined;
  clock?: Clock;
}

/** The `--health-*` flags. */
export function healthCheckerFromConfig(
  c: Pick<
    GatewayConfig,
    | 'healthCheckIntervalSecs'
    | 'healthCheckTimeoutSecs'
    | 'healthCheckEndpoint'
    | 'healthSuccessThreshold'
    | 'healthFailureThreshold'
    | 'disableHealthCheck'
    | 'removeUnhealthyWorkers'
  >,
  deps: HealthCheckerDeps,
): HealthChecker {
  return new HealthChecker(
    {
      intervalMs: c.healthCheckIntervalSecs * 1000,
      timeoutMs: c.healthCheckTimeoutSecs * 1000,
      endpoint: c.healthCheckEndpoint,
      successThreshold: c.healthSuccessThreshold,
      failureThreshold: c.healthFailureThreshold,
      disabled: c.disableHealthCheck,
      removeUnhealthy: c.removeUnhealthyWorkers,
    },
    deps.registry,
    deps.metrics,
    deps.logger,
    deps.removeWorker,
    deps.dispatcher,
    deps.clock ?? systemClock,
    deps.engineClients,
  );
}

export class HealthChecker {
  readonly #tracked = new Map<Worker, Tracked>();

  constructor(
    private readonly config: HealthConfig,
    private readonly registry: WorkerRegistry,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
    /** Called when a worker reaches `failed` and `--remove-unhealthy-workers` is on. */
    private readonly removeWorker: (worker: Worker) => void,
    /** The gateway's guarded worker Agent (connect-guard.ts): probes reach only allowed addresses. */
    private readonly dispatcher: Dispatcher,
    private readonly clock: Clock = systemClock,
    private readonly engineClients?: EngineClients,
  ) {
    registry.on('added', (w) => this.start(w));
    registry.on('replaced', (prev, next) => {
      this.stop(prev);
      this.start(next);
    });
    registry.on('removed', (w) => this.stop(w));
  }

  #settings(worker: Worker): HealthConfig {
    const o = (worker.spec.health ?? {}) as HealthOverride;
    return {
      ...this.config,
      intervalMs: secsToMs(o.check_interval_secs) ?? this.config.intervalMs,
      timeoutMs: secsToMs(o.timeout_secs) ?? this.config.timeoutMs,
      successThreshold: o.success_threshold ?? this.config.successThreshold,
      failureThreshold: o.failure_threshold ?? this.config.failureThreshold,
      disabled: o.disable_health_check ?? this.config.disabled,
    };
  }

  start(worker: Worker): void {
    if (this.#tracked.has(worker) || this.#settings(worker).disabled) return;
    const tracked: Tracked = { timer: undefined, counters: freshCounters(), stopped: false };
    this.#tracked.set(worker, tracked);
    this.#schedule(worker, tracked);
  }

  stop(worker: Worker): void {
    const tracked = this.#tracked.get(worker);
    if (!tracked) return;
    tracked.stopped = true;
    this.clock.clearTimer(tracked.timer);
    this.#tracked.delete(worker);
  }

  stopAll(): void {
    for (const worker of [...this.#tracked.keys()]) this.stop(worker);
  }

  #schedule(worker: Worker, tracked: Tracked): void {
    const s = this.#settings(worker);
    // The next probe is armed only once this one has ended, so probes never overlap.
    tracked.timer = this.clock.setTimer(
      probeDelayMs(s.intervalMs),
      () => {
        tracked.timer = undefined;
        void this.probeOnce(worker).then(() => {
          if (!tracked.stopped) this.#schedule(worker, tracked);
        });
      },
      BACKGROUND,
    );
  }

  /** Runs one probe and applies its result. Exposed for tests that drive probes directly. */
  async probeOnce(worker: Worker): Promise<void> {
    // A draining worker is leaving: its health no longer matters to anyone.
    if (worker.status === 'draining') return;
    const s = this.#settings(worker);
    const ok =
      worker.connectionMode === 'grpc'
        ? await this.#probeGrpc(worker, s.timeoutMs)
        : await probeHealth(worker.upstreamUrl(s.endpoint), {
            timeoutMs: s.timeoutMs,
            apiKey: worker.apiKey,
            dispatcher: this.dispatcher,
          });
    const tracked = this.#tracked.get(worker);
    if (!tracked || tracked.stopped) return;
    this.metrics.workerHealthChecks.inc({
      worker_type: worker.type,
      result: ok ? 'success' : 'failure',
    });
    const next = nextHealthStatus(worker.status, tracked.counters, ok, {
      success: s.successThreshold,
      failure: s.failureThreshold,
    });
    tracked.counters = next.counters;
    if (next.status === worker.status) return;
    this.logger.info(
      { worker: worker.url, from: worker.status, to: next.status },
      'worker status changed',
    );
    this.registry.setStatus(worker, next.status);
    if (next.status === 'failed') {
      this.stop(worker);
      if (this.config.removeUnhealthy) this.removeWorker(worker);
    }
  }

  /**
   * One gRPC probe: the engine's `HealthCheck` under the health timeout (SMG reads `healthy`;
   * an RPC error or a timeout is a failure). A probe allowed no time fails, as the HTTP probe.
   */
  async #probeGrpc(worker: Worker, timeoutMs: number): Promise<boolean> {
    if (timeoutMs <= 0 || !this.engineClients) return false;
    try {
      const report = await this.engineClients.get(worker).healthCheck(timeoutMs);
      if (!report.healthy) {
        this.logger.debug({ worker: worker.url, message: report.message }, 'engine unhealthy');
      }
      return report.healthy;
    } catch (err) {
      this.logger.debug({ worker: worker.url, err: (err as Error).message }, 'HealthCheck failed');
      return false;
    }
  }
}

function secsToMs(secs: number | undefined): number | undefined {
  return secs === undefined ? undefined : secs * 1000;
}
