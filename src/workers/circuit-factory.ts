/**
 * Builds each worker's circuit breaker from the `--cb-*` flags, wired to the `smg_worker_cb_*`
 * metrics. `--disable-circuit-breaker` gives breakers that never open (SMG: threshold u32::MAX).
 */
import type { GatewayConfig } from '../config/schema.js';
import { counterChild, gaugeChild } from '../observability/label-cache.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import { CIRCUIT_STATE_VALUE, CircuitBreaker, type CircuitConfig } from './circuit-breaker.js';

export type CircuitFactory = (workerKey: string) => CircuitBreaker;

/** The `--cb-*` flags, each worker's breaker reporting to `metrics`. */
export function circuitFactoryFromConfig(
  c: Pick<
    GatewayConfig,
    'cbFailureThreshold' | 'cbSuccessThreshold' | 'cbTimeoutDurationSecs' | 'disableCircuitBreaker'
  >,
  deps: { clock: Clock; metrics: GatewayMetrics },
): CircuitFactory {
  return circuitFactory(
    {
      failureThreshold: c.cbFailureThreshold,
      successThreshold: c.cbSuccessThreshold,
      timeoutMs: c.cbTimeoutDurationSecs * 1000,
      disabled: c.disableCircuitBreaker,
    },
    deps.clock,
    deps.metrics,
  );
}

export function circuitFactory(
  config: CircuitConfig,
  clock: Clock,
  metrics: GatewayMetrics,
): CircuitFactory {
  return (worker) => {
    // Children made once per worker: an outcome is recorded on every request, and prom-client's
    // own calls validate and hash the label set each time (observability/label-cache.ts).
    const labels = { worker };
    const state = gaugeChild(metrics.cbState, labels);
    const failures = gaugeChild(metrics.cbConsecutiveFailures, labels);
    const successes = gaugeChild(metrics.cbConsecutiveSuccesses, labels);
    const outcomes = {
      success: counterChild(metrics.cbOutcomes, { worker, outcome: 'success' }),
      failure: counterChild(metrics.cbOutcomes, { worker, outcome: 'failure' }),
      neutral: counterChild(metrics.cbOutcomes, { worker, outcome: 'neutral' }),
    };
    state.set(0);
    return new CircuitBreaker(config, clock, {
      transition(from, to) {
        metrics.cbTransitions.inc({ worker, from, to });
        state.set(CIRCUIT_STATE_VALUE[to]);
      },
      outcome(outcome, breaker) {
        outcomes[outcome].inc();
        failures.set(breaker.consecutiveFailures);
        successes.set(breaker.consecutiveSuccesses);
      },
    });
  };
}
