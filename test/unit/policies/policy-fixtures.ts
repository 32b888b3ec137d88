/** Shared fixtures for the policy unit tests: a manual clock, engine reports, metric readers. */
import type { Lease } from '../../../src/util/lease.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { DEFAULT_POLICY_CONFIG, type PolicyConfig } from '../../../src/policies/policy-config.js';
import type { PolicyDeps } from '../../../src/policies/registry.js';
import { ManualClock, seededRandom } from '@switchyard/kit';
import type { RankLoad, WorkerLoadSnapshot } from '../../../src/workers/load-snapshot.js';
import { CircuitBreaker } from '../../../src/workers/circuit-breaker.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';

/** Moves a manual clock to the absolute time `ms` (never backwards), running what falls due. */
export function advanceTo(clock: ManualClock, ms: number): void {
  clock.advance(ms - clock.now());
}

/** A one-rank engine report received at `receivedAt` (idle unless overridden). */
export function snapshot(receivedAt: number, rank: Partial<RankLoad> = {}): WorkerLoadSnapshot {
  return {
    receivedAt,
    ranks: [
      {
        dpRank: 0,
        runningReqs: 0,
        waitingReqs: 0,
        waitingUncachedTokens: 0,
        usedTokens: 0,
        maxTotalTokens: 0,
        tokenUsage: 0,
        genThroughput: 0,
        cacheHitRate: 0,
        maxRunningRequests: 0,
        ...rank,
      },
    ],
  };
}

/** Holds `n` units of in-flight load on the worker (as the router's lease would). */
export function holdLoad(worker: Worker, n: number): Lease[] {
  return Array.from({ length: n }, () => worker.acquireLoad());
}

/** Policy deps with real metrics, a manual clock, a seeded random and SMG CLI defaults. */
export function testDeps(
  config: Partial<PolicyConfig> = {},
  seed = 1,
): PolicyDeps & { clock: ManualClock; metrics: GatewayMetrics } {
  return {
    random: seededRandom(seed),
    clock: new ManualClock(),
    metrics: new GatewayMetrics(),
    config: { ...DEFAULT_POLICY_CONFIG, ...config },
  };
}

interface Readable {
  get(): Promise<{ values: { labels: Partial<Record<string, string | number>>; value: number }[] }>;
}

/** The value of a metric series (0 when it has not been observed). */
export async function metricValue(
  metric: Readable,
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  const match = values.find(
    (v) =>
      Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want) &&
      Object.keys(v.labels).length === Object.keys(labels).length,
  );
  return match?.value ?? 0;
}

/** A ready worker whose circuit breaker is open (so `isAvailable()` is false, eligibility is not). */
export function openCircuitWorker(name: string): Worker {
  const circuit = new CircuitBreaker(
    { failureThreshold: 1, successThreshold: 1, timeoutMs: 1e12, disabled: false },
    new ManualClock(),
  );
  circuit.record('failure');
  return testWorker(name, { circuit });
}
