/**
 * SMG's worker status machine (`compute_next_status`), as a pure function so every transition is
 * unit-tested without timers:
 *   pending  -> ready      after `success` consecutive successes
 *   pending  -> failed     after 10 x `failure` probes while pending
 *   ready    -> not_ready  after `failure` consecutive failures
 *   not_ready-> ready      after `success` consecutive successes
 *   not_ready-> failed     after 3 x `failure` consecutive failures
 *   failed and draining are terminal for probing.
 * A threshold of 0 is accepted, as SMG accepts it, and acts as 1 (docs/configuration.md): a count
 * is reset by the opposite outcome, so a raw 0 would let a success take a worker to not_ready
 * and a failure take it to ready. The pending cap stays 10 x `failure` over every pending probe,
 * so with 0 a pending worker fails on its first probe that does not make it ready, as documented.
 */
import type { WorkerStatus } from './worker.js';

export interface HealthCounters {
  successes: number;
  failures: number;
  pendingProbes: number;
}

export interface HealthThresholds {
  success: number;
  failure: number;
}

export const freshCounters = (): HealthCounters => ({
  successes: 0,
  failures: 0,
  pendingProbes: 0,
});

export function nextHealthStatus(
  status: WorkerStatus,
  c: HealthCounters,
  ok: boolean,
  t: HealthThresholds,
): { status: WorkerStatus; counters: HealthCounters } {
  if (status === 'failed' || status === 'draining') return { status, counters: c };
  const needSuccesses = Math.max(1, t.success);
  const needFailures = Math.max(1, t.failure);
  const counters: HealthCounters = ok
    ? { successes: c.successes + 1, failures: 0, pendingProbes: c.pendingProbes }
    : { successes: 0, failures: c.failures + 1, pendingProbes: c.pendingProbes };
  switch (status) {
    case 'pending': {
      counters.pendingProbes += 1;
      if (counters.successes >= needSuccesses)
        return { status: 'ready', counters: freshCounters() };
      if (counters.pendingProbes >= 10 * t.failure)
        return { status: 'failed', counters: freshCounters() };
      return { status, counters };
    }
    case 'ready':
      if (counters.failures >= needFailures)
        return { status: 'not_ready', counters: { ...counters, successes: 0 } };
      return { status, counters };
    case 'not_ready':
      if (counters.successes >= needSuccesses)
        return { status: 'ready', counters: freshCounters() };
      if (counters.failures >= 3 * needFailures)
        return { status: 'failed', counters: freshCounters() };
      return { status, counters };
  }
}
