/** The resilience flags of `switchyard launch`: retries, circuit breakers, load monitoring, overload protection and the concurrency limit. */
import type { CoreFlag } from './core-flag.js';
import { OVERLOAD_PROTECTION_TOKEN_USAGE } from '../workers/overload.js';

export const RESILIENCE_FLAGS: readonly CoreFlag[] = [
  // Resilience
  {
    name: 'retry-max-retries',
    key: 'retryMaxRetries',
    kind: 'int',
    default: 5,
    help: 'Total attempts, the first included (>= 1 unless --disable-retries)',
  },
  {
    name: 'retry-initial-backoff-ms',
    key: 'retryInitialBackoffMs',
    kind: 'int',
    default: 50,
    help: 'Backoff before the first retry',
  },
  {
    name: 'retry-max-backoff-ms',
    key: 'retryMaxBackoffMs',
    kind: 'int',
    default: 30000,
    help: 'Backoff ceiling',
  },
  {
    name: 'retry-backoff-multiplier',
    key: 'retryBackoffMultiplier',
    kind: 'float',
    default: 1.5,
    help: 'Backoff growth per attempt',
  },
  {
    name: 'retry-jitter-factor',
    key: 'retryJitterFactor',
    kind: 'float',
    default: 0.2,
    help: 'Backoff x (1 + U[-j, +j])',
  },
  {
    name: 'disable-retries',
    key: 'disableRetries',
    kind: 'bool',
    default: false,
    help: 'One attempt only',
  },
  {
    name: 'cb-failure-threshold',
    key: 'cbFailureThreshold',
    kind: 'int',
    default: 10,
    help: 'Consecutive failures that open a circuit (>= 1 unless --disable-circuit-breaker)',
  },
  {
    name: 'cb-success-threshold',
    key: 'cbSuccessThreshold',
    kind: 'int',
    default: 3,
    help: 'Half-open successes that close it',
  },
  {
    name: 'cb-timeout-duration-secs',
    key: 'cbTimeoutDurationSecs',
    kind: 'int',
    default: 60,
    help: 'Open -> half-open delay',
  },
  {
    name: 'cb-window-duration-secs',
    key: 'cbWindowDurationSecs',
    kind: 'int',
    default: 120,
    help: 'Accepted for SMG compatibility; unused (failures are consecutive)',
  },
  {
    name: 'disable-circuit-breaker',
    key: 'disableCircuitBreaker',
    kind: 'bool',
    default: false,
    help: 'Circuits never open',
  },
  // Load monitoring and overload protection
  {
    name: 'load-monitor-interval',
    key: 'loadMonitorInterval',
    kind: 'int',
    default: 10,
    help: 'Seconds between engine load polls',
  },
  {
    name: 'disable-load-monitoring',
    key: 'disableLoadMonitoring',
    kind: 'bool',
    default: false,
    help: 'Poll only when a policy or feature needs loads',
  },
  {
    name: 'engine-metrics',
    key: 'engineMetrics',
    kind: 'bool',
    default: false,
    help: 'Re-export engine loads as smg_engine_* gauges',
  },
  {
    name: 'worker-overload-protection',
    key: 'workerOverloadProtection',
    kind: 'bool',
    default: false,
    help: `Veto workers at ${OVERLOAD_PROTECTION_TOKEN_USAGE} KV usage`,
  },
  {
    name: 'worker-overload-waiting-requests',
    key: 'workerOverloadWaitingRequests',
    kind: 'int',
    help: 'Waiting requests at or above which a worker is overloaded',
  },
  {
    name: 'worker-overload-token-usage',
    key: 'workerOverloadTokenUsage',
    kind: 'float',
    help: 'KV usage at or above which a worker is overloaded, in (0, 1]',
  },
  // Gateway concurrency limit
  {
    name: 'max-concurrent-requests',
    key: 'maxConcurrentRequests',
    kind: 'int',
    default: -1,
    help: 'Permits held for whole responses (<= 0 = off)',
  },
  {
    name: 'queue-size',
    key: 'queueSize',
    kind: 'int',
    default: 100,
    help: 'Requests that may wait for a permit (0 = reject at once)',
  },
  {
    name: 'queue-timeout-secs',
    key: 'queueTimeoutSecs',
    kind: 'int',
    default: 60,
    help: 'Longest wait for a permit (0 only with --queue-size 0)',
  },
  {
    name: 'rate-limit-tokens-per-second',
    key: 'rateLimitTokensPerSecond',
    kind: 'int',
    help: 'Permit refill rate, whole tokens per second (unset or 0 = no refill: permits return when responses end)',
  },
];
