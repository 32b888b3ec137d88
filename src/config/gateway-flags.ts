/**
 * Every `switchyard launch` flag, named and defaulted as SMG's CLI (reference smg-core.md §2).
 * Later features add their flags here and their rules to `validate.ts`.
 */
import type { FlagSpec } from '../cli/flag-parser.js';
import { POLICY_NAMES } from '../policies/names.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export const GATEWAY_FLAGS: readonly FlagSpec[] = [
  // Server / workers
  { name: 'host', key: 'host', kind: 'string', default: '0.0.0.0', help: 'Bind address' },
  { name: 'port', key: 'port', kind: 'int', default: 30000, help: 'Main port (0 = ephemeral)' },
  { name: 'worker-urls', key: 'workerUrls', kind: 'list', default: [], metavar: '<url...>', help: 'Regular-mode worker URLs' },
  // Routing
  { name: 'policy', key: 'policy', kind: 'enum', choices: POLICY_NAMES, default: 'round_robin', help: 'Load-balancing policy' },
  // Auth
  { name: 'api-key', key: 'apiKey', kind: 'string', metavar: '<key>', help: 'Bearer key required on data-plane and admin routes; also sent to workers' },
  // Request handling
  { name: 'max-payload-size', key: 'maxPayloadSize', kind: 'int', default: 536870912, help: 'Request body limit in bytes' },
  { name: 'request-timeout-secs', key: 'requestTimeoutSecs', kind: 'int', default: 1800, help: 'Upstream request timeout (whole request, streams included)' },
  { name: 'upstream-pool-idle-timeout-secs', key: 'upstreamPoolIdleTimeoutSecs', kind: 'int', default: 3, help: 'Idle upstream keep-alive; keep below the engine keep-alive (5 s)' },
  { name: 'shutdown-grace-period-secs', key: 'shutdownGracePeriodSecs', kind: 'int', default: 180, help: 'Drain period for in-flight requests on SIGTERM' },
  { name: 'request-id-headers', key: 'requestIdHeaders', kind: 'list', default: [], metavar: '<name...>', help: 'Extra request-id header names, checked before x-request-id' },
  { name: 'model-alias', key: 'modelAlias', kind: 'list', default: [], metavar: '<alias=canonical...>', help: 'Model alias (repeatable)' },
  // Logging and metrics
  { name: 'log-level', key: 'logLevel', kind: 'enum', choices: LOG_LEVELS, default: 'info', help: 'Log level' },
  { name: 'log-json', key: 'logJson', kind: 'bool', default: false, help: 'JSON log lines' },
  { name: 'prometheus-host', key: 'prometheusHost', kind: 'string', default: '0.0.0.0', help: 'Metrics bind address' },
  { name: 'prometheus-port', key: 'prometheusPort', kind: 'int', default: 29000, help: 'Metrics port (0 = ephemeral)' },
  // Health checks and worker lifecycle
  { name: 'health-check-interval-secs', key: 'healthCheckIntervalSecs', kind: 'int', default: 60, help: 'Probe period' },
  { name: 'health-check-timeout-secs', key: 'healthCheckTimeoutSecs', kind: 'int', default: 5, help: 'Per-probe timeout' },
  { name: 'health-check-endpoint', key: 'healthCheckEndpoint', kind: 'string', default: '/health', help: 'HTTP probe path' },
  { name: 'health-failure-threshold', key: 'healthFailureThreshold', kind: 'int', default: 3, help: 'Consecutive failures: ready -> not_ready' },
  { name: 'health-success-threshold', key: 'healthSuccessThreshold', kind: 'int', default: 2, help: 'Consecutive successes: not_ready -> ready' },
  { name: 'disable-health-check', key: 'disableHealthCheck', kind: 'bool', default: false, help: 'Do not probe workers' },
  { name: 'remove-unhealthy-workers', key: 'removeUnhealthyWorkers', kind: 'bool', default: false, help: 'Remove workers that reach failed' },
  { name: 'drain-settle-secs', key: 'drainSettleSecs', kind: 'int', default: 5, help: 'Time a removed worker stays draining before it leaves the registry' },
  { name: 'worker-startup-timeout-secs', key: 'workerStartupTimeoutSecs', kind: 'int', default: 1800, help: 'Registration deadline for a new worker' },
  { name: 'worker-startup-delay', key: 'workerStartupDelay', kind: 'int', default: 0, help: 'Grace period before the first startup probe (s)' },
  { name: 'worker-startup-check-interval', key: 'workerStartupCheckInterval', kind: 'int', default: 30, help: 'Startup probe interval (s)' },
];
