/**
 * SMG range-checks a policy's tuning values only for the policies in use
 * (config/validation.rs `validate_policy`): `--policy round_robin --cache-threshold 5` starts. This
 * file holds those bounds, per policy, and applies them to the policies the config uses.
 */
import type { PolicyName } from '../policies/names.js';
import type { GatewayConfig } from './schema.js';

type NumericKey = {
  [K in keyof GatewayConfig]-?: GatewayConfig[K] extends number ? K : never;
}[keyof GatewayConfig];

interface Bound {
  readonly flag: string;
  readonly key: NumericKey;
  /** True when the value is allowed. */
  readonly ok: (value: number) => boolean;
  /** The rule, in SMG's words. */
  readonly rule: string;
}

const positive = (flag: string, key: NumericKey): Bound => ({
  flag,
  key,
  ok: (v) => v > 0,
  rule: 'must be > 0',
});
const atLeastOne = (flag: string, key: NumericKey): Bound => ({
  flag,
  key,
  ok: (v) => v >= 1,
  rule: 'must be >= 1.0',
});

/** SMG's bounds per policy; a policy not listed has no tuning values to check. */
const POLICY_BOUNDS: Partial<Record<PolicyName, readonly Bound[]>> = {
  cache_aware: [
    {
      flag: '--cache-threshold',
      key: 'cacheThreshold',
      ok: (v) => v >= 0 && v <= 1,
      rule: 'must be between 0.0 and 1.0',
    },
    atLeastOne('--balance-rel-threshold', 'balanceRelThreshold'),
    // Usage is a fraction, so any value >= 1.0 never triggers: SMG's documented way to disable.
    {
      flag: '--balance-token-usage-threshold',
      key: 'balanceTokenUsageThreshold',
      ok: (v) => v > 0,
      rule: 'must be > 0.0 (use >= 1.0 to disable)',
    },
    {
      flag: '--overload-token-usage-threshold',
      key: 'overloadTokenUsageThreshold',
      ok: (v) => v > 0,
      rule: 'must be > 0.0 (use >= 1.0 to disable)',
    },
    positive('--eviction-interval', 'evictionIntervalSecs'),
    positive('--max-tree-size', 'maxTreeSize'),
  ],
  least_load: [
    {
      flag: '--least-load-kv-pressure-weight',
      key: 'leastLoadKvPressureWeight',
      ok: (v) => v >= 0,
      rule: 'must be >= 0.0',
    },
    positive('--least-load-mean-prefill-tokens', 'leastLoadMeanPrefillTokens'),
    positive('--least-load-default-throughput', 'leastLoadDefaultThroughput'),
  ],
  prefix_hash: [
    positive('--prefix-token-count', 'prefixTokenCount'),
    atLeastOne('--prefix-hash-load-factor', 'prefixHashLoadFactor'),
  ],
};

/**
 * The policies the config routes with, each with the flag that chose it. The leg policies are
 * used only where a PD router exists (SMG ignores them otherwise, see ignored-inputs.ts).
 */
export function policiesInUse(c: GatewayConfig): { flag: string; policy: PolicyName }[] {
  const used: { flag: string; policy: PolicyName }[] = [{ flag: '--policy', policy: c.policy }];
  if (c.pdDisaggregation || c.enableIgw) {
    if (c.prefillPolicy) used.push({ flag: '--prefill-policy', policy: c.prefillPolicy });
    if (c.decodePolicy) used.push({ flag: '--decode-policy', policy: c.decodePolicy });
  }
  return used;
}

/** The first tuning value out of its policy's bounds, as one line naming flag, value and rule. */
export function policyBoundViolation(c: GatewayConfig): string | undefined {
  for (const { flag: chooser, policy } of policiesInUse(c)) {
    for (const bound of POLICY_BOUNDS[policy] ?? []) {
      const value = c[bound.key];
      if (!bound.ok(value))
        return `${bound.flag}: ${bound.rule} when ${chooser} is ${policy} (got ${value})`;
    }
  }
  return undefined;
}
