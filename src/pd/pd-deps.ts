/** What every PD dispatch strategy needs, and the pair it dispatches to. */
import type { Clock } from '@switchyard/kit';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { Worker } from '../workers/worker.js';

export interface PdDeps {
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  logger: Logger;
  requestTimeoutMs: number;
  /** Arms the legs' deadlines and the PD grace timers. */
  clock: Clock;
}

export interface Pair {
  prefill: Worker;
  decode: Worker;
}

export type { PdSeries } from '../routing/router-series.js';
