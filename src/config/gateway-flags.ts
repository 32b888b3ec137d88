/**
 * Every `switchyard launch` flag, named and defaulted as SMG's CLI (reference smg-core.md §2).
 * Later features add their flags to CORE_FLAGS and their rules to `validate.ts`. SMG flags that
 * Switchyard accepts without effect, or refuses, have their own files; GATEWAY_FLAGS is the one
 * table of all of them, each with its status (flag-status.ts).
 */
import type { FlagSpec } from '../cli/flag-parser.js';
import {
  ASSIGNMENT_MODES,
  LEG_POLICY_NAMES,
  POLICY_NAMES,
  UNSUPPORTED_POLICY_NAMES,
} from '../policies/names.js';
import { PD_WEIGHT_MODES } from '../routing/router-weights.js';
import { consumeUrlPort } from './consume-url-port.js';
import type { GatewayFlag, UnsupportedValues } from './flag-status.js';
import { NO_EFFECT_FLAGS } from './smg-flags-no-effect.js';
import { UNSUPPORTED_FLAGS } from './smg-flags-unsupported.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export const consumePrefill = consumeUrlPort('prefill');

/** Implemented flags; the ones SMG does not have are marked `switchyard-only`. */
type CoreFlag = FlagSpec & {
  readonly status?: 'switchyard-only';
  readonly unsupportedValues?: UnsupportedValues;
};

/** SMG's policy values parse; the ones not implemented here are refused by `launch`. */
const UNSUPPORTED_POLICIES: UnsupportedValues = {
  values: UNSUPPORTED_POLICY_NAMES,
  subsystem: 'the bucket policy',
};
const policyFlag = (
  choices: readonly string[],
): Pick<CoreFlag, 'kind' | 'choices' | 'unsupportedValues'> => ({
  kind: 'enum',
  choices: [...choices, ...UNSUPPORTED_POLICY_NAMES],
  unsupportedValues: UNSUPPORTED_POLICIES,
});

const CORE_FLAGS: readonly CoreFlag[] = [
  // Server / workers
  { name: 'host', key: 'host', kind: 'string', default: '0.0.0.0', help: 'Bind address' },
  { name: 'port', key: 'port', kind: 'int', default: 30000, help: 'Main port (0 = ephemeral)' },
  {
    name: 'worker-urls',
    key: 'workerUrls',
    kind: 'list',
    default: [],
    metavar: '<url...>',
    help: 'Regular-mode worker URLs',
  },
  {
    name: 'worker-allow-cidr',
    key: 'workerAllowCidr',
    kind: 'list',
    default: [],
    metavar: '<cidr...>',
    help: 'Only register workers whose address (literal or resolved) is inside one of these ranges (Switchyard-only; default: any but link-local)',
    status: 'switchyard-only',
  },
  // Prefill/decode disaggregation
  {
    name: 'pd-disaggregation',
    key: 'pdDisaggregation',
    kind: 'bool',
    default: false,
    help: 'Prefill/decode disaggregated mode',
  },
  {
    name: 'prefill',
    key: 'prefill',
    kind: 'list',
    default: [],
    metavar: '<url> [bootstrap_port|none]',
    help: 'Prefill worker with optional bootstrap port (repeatable)',
    consume: consumePrefill,
  },
  {
    name: 'enable-igw',
    key: 'enableIgw',
    kind: 'bool',
    default: false,
    help: 'Multi-model mode: regular and PD routers at once, chosen per request by available workers',
  },
  {
    name: 'pd-weight-mode',
    key: 'pdWeightMode',
    kind: 'enum',
    choices: PD_WEIGHT_MODES,
    default: 'paired',
    help: 'IGW PD weight: paired = 2*min(P,D), sum = P+D (SMG)',
    status: 'switchyard-only',
  },
  {
    name: 'decode',
    key: 'decode',
    kind: 'append',
    default: [],
    metavar: '<url>',
    help: 'Decode worker (one per flag, repeatable)',
  },
  {
    name: 'prefill-policy',
    key: 'prefillPolicy',
    ...policyFlag(LEG_POLICY_NAMES),
    help: 'Policy for the prefill leg (default: --policy)',
  },
  {
    name: 'decode-policy',
    key: 'decodePolicy',
    ...policyFlag(LEG_POLICY_NAMES),
    help: 'Policy for the decode leg (default: --policy)',
  },
  {
    name: 'prefill-max-inflight-requests-per-worker',
    key: 'prefillMaxInflightRequestsPerWorker',
    kind: 'int',
    default: -1,
    help: 'PD: in-flight prefill requests per prefill worker (<= 0 = off)',
    status: 'switchyard-only',
  },
  // No flag default: giving either option without a positive limit is a startup error.
  {
    name: 'prefill-queue-size',
    key: 'prefillQueueSize',
    kind: 'int',
    help: 'PD: requests that may wait for a prefill slot; 0 = reject at once [default: 100]',
    status: 'switchyard-only',
  },
  {
    name: 'prefill-queue-timeout-secs',
    key: 'prefillQueueTimeoutSecs',
    kind: 'int',
    help: 'PD: longest wait for a prefill slot [default: 60]',
    status: 'switchyard-only',
  },
  {
    name: 'disable-pd-decode-admission',
    key: 'disablePdDecodeAdmission',
    kind: 'bool',
    default: false,
    help: 'PD: do not gate requests by the decode running window (Switchyard-only; for A/B comparisons)',
    status: 'switchyard-only',
  },
  {
    name: 'pd-admission-wait-secs',
    key: 'pdAdmissionWaitSecs',
    kind: 'int',
    default: 30,
    help: 'PD: longest wait for room in a decode running window, shared across retries (0 = shed at once)',
    status: 'switchyard-only',
  },
  // Routing
  {
    name: 'policy',
    key: 'policy',
    ...policyFlag(POLICY_NAMES),
    default: 'cache_aware',
    help: 'Load-balancing policy',
  },
  {
    name: 'cache-threshold',
    key: 'cacheThreshold',
    kind: 'float',
    default: 0.3,
    aliases: ['cache-match-threshold'],
    help: 'cache_aware: matched-prefix ratio that counts as a hit (strictly greater)',
  },
  {
    name: 'balance-abs-threshold',
    key: 'balanceAbsThreshold',
    kind: 'int',
    default: 64,
    aliases: ['spill-abs-threshold'],
    help: 'Spill gate: absolute load margin over the fleet mean',
  },
  {
    name: 'balance-rel-threshold',
    key: 'balanceRelThreshold',
    kind: 'float',
    default: 1.5,
    aliases: ['spill-rel-threshold'],
    help: 'Spill gate: multiple of the fleet mean load',
  },
  {
    name: 'balance-token-usage-threshold',
    key: 'balanceTokenUsageThreshold',
    kind: 'float',
    default: 1.0,
    help: 'cache_aware: KV-usage spread that abandons affinity (1.0 = off)',
  },
  {
    name: 'overload-token-usage-threshold',
    key: 'overloadTokenUsageThreshold',
    kind: 'float',
    default: 1.0,
    help: 'cache_aware: hottest KV usage that abandons affinity (1.0 = off)',
  },
  {
    name: 'eviction-interval',
    key: 'evictionIntervalSecs',
    kind: 'int',
    default: 120,
    help: 'Seconds between cache-tree evictions and sticky-key sweeps (0 = no sweep; cache_aware needs > 0)',
  },
  {
    name: 'max-tree-size',
    key: 'maxTreeSize',
    kind: 'int',
    default: 67108864,
    help: 'Per-model cache-tree bound in characters',
  },
  {
    name: 'prefix-token-count',
    key: 'prefixTokenCount',
    kind: 'int',
    default: 256,
    help: 'prefix_hash: prefix length in tokens (x4 characters for text)',
  },
  {
    name: 'prefix-hash-load-factor',
    key: 'prefixHashLoadFactor',
    kind: 'float',
    default: 1.25,
    help: 'prefix_hash: relative overload factor',
  },
  {
    name: 'prefix-hash-balance-abs-threshold',
    key: 'prefixHashBalanceAbsThreshold',
    kind: 'int',
    default: 10,
    help: 'prefix_hash: absolute overload margin',
  },
  {
    name: 'least-load-kv-pressure-weight',
    key: 'leastLoadKvPressureWeight',
    kind: 'float',
    default: 0.15,
    help: 'least_load: KV pressure weight (s)',
  },
  {
    name: 'least-load-default-throughput',
    key: 'leastLoadDefaultThroughput',
    kind: 'float',
    default: 2000,
    help: 'least_load: fallback tokens/s',
  },
  {
    name: 'least-load-mean-prefill-tokens',
    key: 'leastLoadMeanPrefillTokens',
    kind: 'int',
    default: 1024,
    help: 'least_load: assumed prompt tokens per request',
  },
  {
    name: 'least-load-max-waiting-requests',
    key: 'leastLoadMaxWaitingRequests',
    kind: 'int',
    default: 0,
    help: 'least_load: per-worker waiting cap (0 = off)',
  },
  {
    name: 'max-idle-secs',
    key: 'maxIdleSecs',
    kind: 'int',
    default: 14400,
    aliases: ['sticky-key-idle-secs'],
    help: 'manual / sticky: idle routing-key TTL (0 = keys never expire)',
  },
  {
    name: 'assignment-mode',
    key: 'assignmentMode',
    kind: 'enum',
    choices: ASSIGNMENT_MODES,
    help: 'manual / sticky assignment (manual: random, sticky: delegate)',
  },
  {
    name: 'routing-key-override',
    key: 'routingKeyOverride',
    kind: 'bool',
    default: false,
    aliases: ['sticky-sessions'],
    help: 'Sticky sessions on any policy (key from body rid or headers)',
  },
  {
    name: 'routing-key-headers',
    key: 'routingKeyHeaders',
    kind: 'list',
    default: ['x-smg-routing-key'],
    metavar: '<name...>',
    help: 'Ordered header names for the routing key',
  },
  {
    name: 'dp-aware',
    key: 'dpAware',
    kind: 'bool',
    default: false,
    help: 'Expand workers into one logical worker per data-parallel rank',
  },
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
    help: 'Veto workers at 0.9 KV usage',
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
  // Auth
  {
    name: 'api-key',
    key: 'apiKey',
    kind: 'string',
    metavar: '<key>',
    help: 'Bearer key required on data-plane routes (and admin routes when no control-plane key is set); sent to workers without their own api_key',
  },
  {
    name: 'control-plane-api-keys',
    key: 'controlPlaneApiKeys',
    kind: 'list',
    default: [],
    metavar: '<id:name:role:key...>',
    help: 'Admin-route keys (repeatable); role admin (every method) or user (GET only). When set, --api-key no longer opens admin routes',
  },
  // Request handling
  {
    name: 'max-payload-size',
    key: 'maxPayloadSize',
    kind: 'int',
    default: 536870912,
    help: 'Request body limit in bytes',
  },
  {
    name: 'max-buffered-body-bytes',
    key: 'maxBufferedBodyBytes',
    kind: 'int',
    default: 1073741824,
    help: 'Total request-body bytes held in memory at once (inference and admin); a body that does not fit is answered 503 (Switchyard-only)',
    status: 'switchyard-only',
  },
  {
    name: 'request-body-timeout-secs',
    key: 'requestBodyTimeoutSecs',
    kind: 'int',
    default: 120,
    help: 'Deadline for receiving a whole request body (inference and admin), answered 408 (Switchyard-only)',
    status: 'switchyard-only',
  },
  {
    name: 'request-timeout-secs',
    key: 'requestTimeoutSecs',
    kind: 'int',
    default: 1800,
    help: 'Upstream request timeout (whole request, streams included)',
  },
  {
    name: 'upstream-pool-idle-timeout-secs',
    key: 'upstreamPoolIdleTimeoutSecs',
    kind: 'int',
    default: 3,
    help: 'Idle upstream keep-alive; keep below the engine keep-alive (5 s); 0 = no idle limit',
  },
  {
    name: 'shutdown-grace-period-secs',
    key: 'shutdownGracePeriodSecs',
    kind: 'int',
    default: 180,
    help: 'Drain period for in-flight requests on SIGTERM',
  },
  {
    name: 'request-id-headers',
    key: 'requestIdHeaders',
    kind: 'list',
    default: [],
    metavar: '<name...>',
    help: 'Request-id header names, in order; replaces the default x-request-id, x-correlation-id, x-trace-id, request-id',
  },
  {
    name: 'model-alias',
    key: 'modelAlias',
    kind: 'append',
    default: [],
    metavar: '<alias=canonical>',
    help: 'Model alias (one per flag, repeatable)',
  },
  // Logging and metrics
  {
    name: 'log-level',
    key: 'logLevel',
    kind: 'enum',
    choices: LOG_LEVELS,
    default: 'info',
    help: 'Log level',
  },
  { name: 'log-json', key: 'logJson', kind: 'bool', default: false, help: 'JSON log lines' },
  {
    name: 'prometheus-host',
    key: 'prometheusHost',
    kind: 'string',
    default: '0.0.0.0',
    help: 'Metrics bind address',
  },
  {
    name: 'prometheus-port',
    key: 'prometheusPort',
    kind: 'int',
    default: 29000,
    help: 'Metrics port (0 = ephemeral)',
  },
  // Health checks and worker lifecycle
  {
    name: 'health-check-interval-secs',
    key: 'healthCheckIntervalSecs',
    kind: 'int',
    default: 60,
    help: 'Probe period (0 = as often as possible: every second)',
  },
  {
    name: 'health-check-timeout-secs',
    key: 'healthCheckTimeoutSecs',
    kind: 'int',
    default: 5,
    help: 'Per-probe timeout (0 = every probe times out, as SMG)',
  },
  {
    name: 'health-check-endpoint',
    key: 'healthCheckEndpoint',
    kind: 'string',
    default: '/health',
    help: "HTTP probe path ('/' is added when missing)",
  },
  {
    name: 'health-failure-threshold',
    key: 'healthFailureThreshold',
    kind: 'int',
    default: 3,
    help: 'Consecutive failures: ready -> not_ready',
  },
  {
    name: 'health-success-threshold',
    key: 'healthSuccessThreshold',
    kind: 'int',
    default: 2,
    help: 'Consecutive successes: not_ready -> ready',
  },
  {
    name: 'disable-health-check',
    key: 'disableHealthCheck',
    kind: 'bool',
    default: false,
    help: 'Do not probe workers',
  },
  {
    name: 'remove-unhealthy-workers',
    key: 'removeUnhealthyWorkers',
    kind: 'bool',
    default: false,
    aliases: ['worker-auto-recovery'],
    help: 'Remove workers that reach failed',
  },
  {
    name: 'drain-settle-secs',
    key: 'drainSettleSecs',
    kind: 'int',
    default: 5,
    help: 'Time a removed worker stays draining before it leaves the registry',
  },
  {
    name: 'worker-startup-timeout-secs',
    key: 'workerStartupTimeoutSecs',
    kind: 'int',
    default: 1800,
    help: 'Registration deadline for a new worker',
  },
  {
    name: 'worker-startup-delay',
    key: 'workerStartupDelay',
    kind: 'int',
    default: 0,
    help: 'Grace period before the first startup probe (s)',
  },
  {
    name: 'worker-startup-check-interval',
    key: 'workerStartupCheckInterval',
    kind: 'int',
    default: 30,
    help: 'Startup probe interval (s)',
  },
  {
    name: 'health-check-port',
    key: 'healthCheckPort',
    kind: 'int',
    help: 'Also serve /liveness, /readiness and /health on this port of --host (unset = no probe listener; 0 = ephemeral)',
  },
];

/** The one flag table: implemented, then SMG's no-effect and unsupported flags. */
export const GATEWAY_FLAGS: readonly GatewayFlag[] = [
  ...CORE_FLAGS.map((flag): GatewayFlag => ({ ...flag, status: flag.status ?? 'implemented' })),
  ...NO_EFFECT_FLAGS,
  ...UNSUPPORTED_FLAGS,
];
