/**
 * The `--engine-metrics` re-export of engine load reports as `smg_engine_*` gauges: one series
 * per worker, model and DP rank, as SMG's `record_engine_load` writes them. It remembers the
 * series it wrote for each worker, because prom-client drops a series only by its full label
 * set: a rank that stops reporting, or a removed worker, leaves nothing behind.
 */
import type { GatewayMetrics } from '../observability/metrics.js';
import type { RankLoad } from './load-snapshot.js';

interface EngineSeries {
  worker: string;
  model: string;
  dp_rank: string;
}

const sameSeries = (a: EngineSeries, b: EngineSeries): boolean =>
  a.worker === b.worker && a.model === b.model && a.dp_rank === b.dp_rank;

export class EngineGauges {
  /** Series written per worker key. */
  readonly #written = new Map<string, EngineSeries[]>();

  constructor(private readonly metrics: GatewayMetrics) {}

  /** Replaces a worker's series with one per reported rank. */
  record(worker: string, model: string, ranks: readonly RankLoad[]): void {
    const series: EngineSeries[] = [];
    for (const rank of ranks) {
      const labels = { worker, model, dp_rank: String(rank.dpRank) };
      series.push(labels);
      this.metrics.engineRunning.set(labels, rank.runningReqs);
      this.metrics.engineWaiting.set(labels, rank.waitingReqs);
      this.metrics.engineTokenUsage.set(labels, rank.tokenUsage);
      this.metrics.engineGenThroughput.set(labels, rank.genThroughput);
      this.metrics.engineCacheHitRate.set(labels, rank.cacheHitRate);
    }
    for (const old of this.#written.get(worker) ?? []) {
      if (!series.some((s) => sameSeries(s, old))) this.#remove(old);
    }
    this.#written.set(worker, series);
  }

  /** Drops every series of a worker (it left the registry). */
  clear(worker: string): void {
    for (const labels of this.#written.get(worker) ?? []) this.#remove(labels);
    this.#written.delete(worker);
  }

  #remove(labels: EngineSeries): void {
    const {
      engineRunning,
      engineWaiting,
      engineTokenUsage,
      engineGenThroughput,
      engineCacheHitRate,
    } = this.metrics;
    for (const gauge of [
      engineRunning,
      engineWaiting,
      engineTokenUsage,
      engineGenThroughput,
      engineCacheHitRate,
    ])
      gauge.remove(labels);
  }
}
