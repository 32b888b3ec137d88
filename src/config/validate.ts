/**
 * Turns raw flags into a validated GatewayConfig: the schema for single fields, then the
 * cross-field rules below. Every failure is a UsageError naming the flag, so the CLI can print
 * one line and exit 2.
 */
import { UsageError, type FlagSpec, type RawFlags } from '@switchyard/kit';
import { GATEWAY_FLAGS } from './gateway-flags.js';
import { gatewayConfigSchema, type GatewayConfig } from './schema.js';
import { redactUrlCredentials } from '../workers/worker-url.js';
import { policyBoundViolation } from './policy-bounds.js';
import { SMG_RULES } from './smg-rules.js';
import { HISTORY_RULES } from './history-rules.js';
import { dropIgnoredInputs } from './ignored-inputs.js';
import { otlpEndpointProblem } from '../observability/otlp-endpoint.js';

type Rule = (c: GatewayConfig) => string | undefined;

/** Config keys whose values are secrets, kept out of error messages. */
const SECRET_KEYS: ReadonlySet<string> = new Set(['apiKey', 'controlPlaneApiKeys']);

/**
 * Rules on the flags typed rather than on their values (a default never breaks one): `given`
 * holds the config keys of the flags given on the command line.
 */
type GivenRule = (c: GatewayConfig, given: ReadonlySet<string>) => string | undefined;

const GIVEN_RULES: readonly GivenRule[] = [
  (c, given) =>
    (given.has('prefillQueueSize') || given.has('prefillQueueTimeoutSecs')) &&
    c.prefillMaxInflightRequestsPerWorker <= 0
      ? '--prefill-queue-size and --prefill-queue-timeout-secs need a positive --prefill-max-inflight-requests-per-worker'
      : undefined,
  (c, given) =>
    (given.has('admissionLeaseSecs') || given.has('admissionReplicas')) &&
    c.admissionStore === undefined
      ? '--admission-lease-secs and --admission-replicas configure the Redis store: they need --admission-store redis://host:port'
      : undefined,
];

/** Cross-field rules, SMG's and Switchyard's own. Each returns a message naming the flags involved, or undefined. */
const RULES: readonly Rule[] = [
  (c) =>
    c.prefillMaxInflightRequestsPerWorker > 0 && !c.pdDisaggregation && !c.enableIgw
      ? '--prefill-max-inflight-requests-per-worker needs --pd-disaggregation or --enable-igw (prefill admission is a PD feature)'
      : undefined,
  (c) =>
    c.apiKey !== undefined && c.controlPlaneApiKeys.some((k) => k.key === c.apiKey)
      ? '--control-plane-api-keys: a control-plane key equals --api-key, which would let every data-plane client use the admin routes'
      : undefined,
  (c) => {
    if (!c.enableTrace) return undefined;
    const problem = otlpEndpointProblem(c.otlpTracesEndpoint);
    return (
      problem && `--otlp-traces-endpoint: ${problem} (got ${JSON.stringify(c.otlpTracesEndpoint)})`
    );
  },
  ...SMG_RULES,
  ...HISTORY_RULES,
  policyBoundViolation,
];

function flagForKey(specs: readonly FlagSpec[], key: string): string {
  const spec = specs.find((s) => s.key === key);
  return spec ? `--${spec.name}` : key;
}

export function buildConfig(
  raw: RawFlags,
  specs: readonly FlagSpec[] = GATEWAY_FLAGS,
): GatewayConfig {
  return buildConfigWithWarnings(raw, specs).config;
}

/**
 * As buildConfig, and also returns one warning line per input SMG accepts but ignores or reads
 * in its own way (ignored-inputs.ts), for `launch` to log at startup. `givenKeys` are the config
 * keys of the flags typed (parseFlagsTracked), for the rules on what was given.
 */
export function buildConfigWithWarnings(
  values: RawFlags,
  specs: readonly FlagSpec[] = GATEWAY_FLAGS,
  givenKeys: ReadonlySet<string> = new Set(),
): { config: GatewayConfig; warnings: string[] } {
  const { raw, warnings } = dropIgnoredInputs(values);
  const parsed = gatewayConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    const flag = flagForKey(specs, key);
    const index = issue?.path[1];
    const value =
      index === undefined ? raw[key] : (raw[key] as unknown[] | undefined)?.[Number(index)];
    // A key flag's value is a credential: name the entry, never print it. A worker URL may carry
    // a password, which must not reach the terminal or a CI log either.
    const secret =
      index === undefined ? 'value redacted' : `entry ${Number(index) + 1}, value redacted`;
    const got = SECRET_KEYS.has(key)
      ? secret
      : `got ${redactUrlCredentials(JSON.stringify(value))}`;
    throw new UsageError(`${flag}: ${issue?.message ?? 'invalid value'} (${got})`);
  }
  for (const rule of GIVEN_RULES) {
    const message = rule(parsed.data, givenKeys);
    if (message) throw new UsageError(message);
  }
  for (const rule of RULES) {
    const message = rule(parsed.data);
    if (message) throw new UsageError(message);
  }
  return { config: parsed.data, warnings };
}
