/**
 * Polls every worker's engine load each `--load-monitor-interval` seconds and stores it on the
 * worker (SMG WorkerMonitor): `/v1/loads`, falling back to `/metrics` once the endpoint is known to
 * be absent; a gRPC worker's `GetLoads` RPC, and no report from one that answers
 * `UNIMPLEMENTED` (remembered). Each report re-evaluates the overload veto and, with `--engine-metrics`, the
 * `smg_engine_*` gauges. A report older than three intervals is dropped, so a worker whose polls
 * fail looks "unknown", never idle.
 */
import { request, type Dispatcher } from 'undici';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock, Timer } from '@switchyard/kit';
import { BACKGROUND } from '../util/every.js';
import { workerCallHeaders } from '../upstream/headers.js';
import type { RankLoad, WorkerLoadSnapshot } from './load-snapshot.js';
import {
  isOverloaded,
  overloadThresholdsFrom,
  overloadVetoOn,
  type OverloadThresholds,
} from './overload.js';
import { EngineGauges } from './engine-gauges.js';
import { parseLoadsJson, parseLoadsMetrics } from './load-parse.js';
import type { WorkerRegistry } from './registry.js';
import type { Worker } from './worker.js';
import { EngineCallError, type EngineLoad } from '../engine/types.js';
import type { EngineClients } from './engine-clients.js';

/** grpc-js `status.UNIMPLEMENTED`: the runtime has no `GetLoads`. */
const GRPC_UNIMPLEMENTED = 12;

export interface LoadMonitorConfig {
  /** `--load-monitor-interval` in milliseconds. */
  intervalMs: number;
  engineMetrics: boolean;
  overload: OverloadThresholds;
}

type LoadMonitorFlags = Pick<
  GatewayConfig,
  | 'loadMonitorInterval'
  | 'disableLoadMonitoring'
  | 'engineMetrics'
  | 'policy'
  | 'balanceTokenUsageThreshold'
  | 'overloadTokenUsageThreshold'
  | 'workerOverloadWaitingRequests'
  | 'workerOverloadTokenUsage'
  | 'workerOverloadProtection'
>;

export interface LoadMonitorDeps {
  registry: WorkerRegistry;
  metrics: GatewayMetrics;
  clock: Clock;
  dispatcher: Dispatcher;
  /** gRPC workers' clients, for their `GetLoads` RPC. */
  engineClients?: EngineClients | undefined;
  /** Whether the routing policy reads loads (policies/names.ts `policyReadsLoads` says). */
  policyReadsLoads: boolean;
}

/**
 * Load polling is on by default (SMG); `--disable-load-monitoring` keeps it only where something
 * reads loads: the policy, `--engine-metrics` or the overload veto. Undefined when nothing polls.
 */
export function loadMonitorFromConfig(
  c: LoadMonitorFlags,
  deps: LoadMonitorDeps,
): LoadMonitor | undefined {
  const overload = overloadThresholdsFrom(c);
  const needed =
    !c.disableLoadMonitoring ||
    deps.policyReadsLoads ||
    c.engineMetrics ||
    overloadVetoOn(overload);
  if (!needed) return undefined;
  return new LoadMonitor(
    { intervalMs: c.loadMonitorInterval * 1000, engineMetrics: c.engineMetrics, overload },
    deps.registry,
    deps.metrics,
    deps.clock,
    deps.dispatcher,
    deps.engineClients,
  );
}

export class LoadMonitor {
  #timer: Timer | undefined;
  /** Bumped by start and stop, so a round that ends after a stop arms nothing. */
  #generation = 0;
  #started = false;
  /** Workers whose `/v1/loads` is absent: poll `/metrics` instead (remembered, as SMG). */
  readonly #noLoadsEndpoint = new WeakSet<Worker>();
  /** gRPC workers whose runtime answered `GetLoads` with UNIMPLEMENTED: not reporting. */
  readonly #noGrpcLoads = new WeakSet<Worker>();
  #round: Promise<void> | undefined;
  readonly #engineGauges: EngineGauges;

  constructor(
    private readonly config: LoadMonitorConfig,
    private readonly registry: WorkerRegistry,
    private readonly metrics: GatewayMetrics,
    private readonly clock: Clock,
    /** The gateway's guarded worker Agent (connect-guard.ts): polls reach only allowed addresses. */
    private readonly dispatcher: Dispatcher,
    private readonly engineClients?: EngineClients,
  ) {
    this.#engineGauges = new EngineGauges(metrics);
    registry.on('removed', (worker) => this.#engineGauges.clear(worker.key));
  }

  /** Polls now, then one interval after each round ends (rounds never overlap). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#next(++this.#generation);
  }

  stop(): void {
    this.#started = false;
    this.#generation++;
    this.clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }

  #next(generation: number): void {
    void this.pollAll().then(() => {
      if (generation !== this.#generation) return;
      this.#timer = this.clock.setTimer(
        this.config.intervalMs,
        () => this.#next(generation),
        BACKGROUND,
      );
    });
  }

  /** One round over every worker; a call during a round joins it. Exposed for tests. */
  pollAll(): Promise<void> {
    this.#round ??= this.#poll().finally(() => (this.#round = undefined));
    return this.#round;
  }

  async #poll(): Promise<void> {
    const workers = this.registry
      .all()
      .filter((w) => w.status === 'ready' || w.status === 'not_ready');
    // DP ranks share one engine and one report: poll each URL once.
    const byUrl = new Map<string, Worker[]>();
    for (const w of workers) byUrl.set(w.url, [...(byUrl.get(w.url) ?? []), w]);
    await Promise.all([...byUrl.values()].map((group) => this.#pollGroup(group)));
    this.#expireStale();
    this.#refreshOverloadGauge();
  }

  async #pollGroup(group: Worker[]): Promise<void> {
    const first = group[0];
    if (!first) return;
    const ranks = await this.#fetch(first);
    if (!ranks) return;
    for (const w of group) {
      const own = w.dpRank === undefined ? ranks : ranks.filter((r) => r.dpRank === w.dpRank);
      this.ingest(w, own.length > 0 ? own : ranks);
    }
  }

  /** Stores a report on a worker and applies its consequences. Exposed for tests. */
  ingest(worker: Worker, ranks: readonly RankLoad[]): void {
    const snapshot: WorkerLoadSnapshot = { receivedAt: this.clock.now(), ranks };
    worker.loadSnapshot = snapshot;
    worker.overloaded = isOverloaded(snapshot, this.config.overload);
    // A poll that was in flight while its worker left must not write the worker's series back.
    if (this.config.engineMetrics && this.registry.get(worker.id) === worker) {
      this.#engineGauges.record(worker.key, this.registry.modelLabel(worker.modelId), ranks);
    }
  }

  #expireStale(): void {
    const maxAge = 3 * this.config.intervalMs;
    const now = this.clock.now();
    for (const w of this.registry.all()) {
      if (w.loadSnapshot && now - w.loadSnapshot.receivedAt > maxAge) {
        w.loadSnapshot = undefined;
        w.overloaded = false;
      }
    }
  }

  #refreshOverloadGauge(): void {
    const byModel = new Map<string, number>();
    for (const w of this.registry.all())
      byModel.set(w.modelId, (byModel.get(w.modelId) ?? 0) + (w.overloaded ? 1 : 0));
    for (const [model, n] of byModel) this.metrics.workersOverloaded.set({ model }, n);
  }

  async #fetchGrpc(worker: Worker, timeoutMs: number): Promise<RankLoad[] | undefined> {
    if (!this.engineClients || this.#noGrpcLoads.has(worker)) return undefined;
    try {
      return (await this.engineClients.get(worker).getLoads(timeoutMs)).map(rankFromEngine);
    } catch (err) {
      if (err instanceof EngineCallError && err.code === GRPC_UNIMPLEMENTED) {
        this.#noGrpcLoads.add(worker);
      }
      return undefined;
    }
  }

  async #fetch(worker: Worker): Promise<RankLoad[] | undefined> {
    const timeoutMs = Math.min(5000, this.config.intervalMs);
    if (worker.connectionMode === 'grpc') return this.#fetchGrpc(worker, timeoutMs);
    const headers = workerCallHeaders(worker.apiKey);
    const get = async (path: string): Promise<{ status: number; text: string } | undefined> => {
      try {
        const res = await request(worker.upstreamUrl(path), {
          dispatcher: this.dispatcher,
          headers,
          signal: AbortSignal.timeout(timeoutMs),
        });
        return { status: res.statusCode, text: await res.body.text() };
      } catch {
        return undefined;
      }
    };
    if (!this.#noLoadsEndpoint.has(worker)) {
      const res = await get('/v1/loads?include=core,disagg,queues,memory');
      if (!res) return undefined;
      let ranks: RankLoad[] | undefined;
      if (res.status === 200) {
        try {
          ranks = parseLoadsJson(JSON.parse(res.text));
        } catch {
          ranks = undefined;
        }
      }
      if (ranks) return ranks;
      if (res.status === 200 || res.status === 404 || res.status === 405 || res.status === 501)
        this.#noLoadsEndpoint.add(worker);
      else return undefined;
    }
    const metrics = await get('/metrics');
    return metrics && metrics.status === 200 ? parseLoadsMetrics(metrics.text) : undefined;
  }
}

/**
 * A `GetLoads` rank as the snapshot the HTTP reports feed. The engine client's load carries no
 * throughput, cache hit rate or uncached waiting tokens; those read 0 (unknown), as a
 * `/metrics` fallback report without them does.
 */
export function rankFromEngine(load: EngineLoad): RankLoad {
  return {
    dpRank: load.dpRank,
    runningReqs: load.numRunningReqs,
    waitingReqs: load.numWaitingReqs,
    waitingUncachedTokens: 0,
    usedTokens: load.numUsedTokens,
    maxTotalTokens: load.maxTotalNumTokens,
    tokenUsage: load.tokenUsage,
    genThroughput: 0,
    cacheHitRate: 0,
    maxRunningRequests: load.maxRunningRequests,
  };
}
