/**
 * Builds each worker's circuit breaker from the `--cb-*` flags, wired to the `smg_worker_cb_*`
 * metrics. `--disable-circuit-breaker` gives breakers that never open (SMG: threshold u32::MAX).
 */
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '../util/clock.js';
import { CIRCUIT_STATE_VALUE, CircuitBreaker, type CircuitConfig } from './circuit-breaker.js';

export type CircuitFactory = (workerKey: string) => CircuitBreaker;

export function circuitFactory(
  config: CircuitConfig,
  clock: Clock,
  metrics: GatewayMetrics,
): CircuitFactory {
  return (worker) => {
    const labels = { worker };
    metrics.cbState.set(labels, 0);
    return new CircuitBreaker(config, clock, {
      transition(from, to) {
        metrics.cbTransitions.inc({ worker, from, to });
        metrics.cbState.set(labels, CIRCUIT_STATE_VALUE[to]);
      },
      outcome(outcome, breaker) {
        metrics.cbOutcomes.inc({ worker, outcome });
        metrics.cbConsecutiveFailures.set(labels, breaker.consecutiveFailures);
        metrics.cbConsecutiveSuccesses.set(labels, breaker.consecutiveSuccesses);
      },
    });
  };
}
