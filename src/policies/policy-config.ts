/**
 * The knobs every policy reads, with SMG's CLI defaults. Picked from the
 * gateway config in one place so policies never see the whole config.
 */
import type { AssignmentMode } from './names.js';

export interface PolicyConfig {
  /** cache_aware: matched-prefix ratio must be strictly greater than this. Default 0.3. */
  cacheThreshold: number;
  /** Spill gate: absolute margin over the mean load. Default 64. */
  balanceAbsThreshold: number;
  /** Spill gate: multiple of the mean load. Default 1.5. */
  balanceRelThreshold: number;
  /** KV-usage spread (max - min) above which affinity is abandoned. Default 1.0 (off). */
  balanceTokenUsageThreshold: number;
  /** Hottest engine's KV usage above which affinity is abandoned. Default 1.0 (off). */
  overloadTokenUsageThreshold: number;
  /** Seconds between tree eviction passes and manual-policy sweeps. Default 120. */
  evictionIntervalSecs: number;
  /** Per-model tree size bound in characters. Default 67108864. */
  maxTreeSize: number;
  /** prefix_hash: prefix length in tokens (x4 chars for text). Default 256. */
  prefixTokenCount: number;
  /** prefix_hash: relative overload factor. Default 1.25. */
  prefixHashLoadFactor: number;
  /** prefix_hash: absolute overload margin. Default 10. */
  prefixHashBalanceAbsThreshold: number;
  /** least_load: λ in seconds. Default 0.15. */
  leastLoadKvPressureWeight: number;
  /** least_load: fallback tokens/s. Default 2000. */
  leastLoadDefaultThroughput: number;
  /** least_load: p̄ for unknown-length requests. Default 1024. */
  leastLoadMeanPrefillTokens: number;
  /** least_load: per-worker waiting cap, 0 = off. */
  leastLoadMaxWaitingRequests: number;
  /** manual / sticky: idle key TTL in seconds. Default 14400. */
  maxIdleSecs: number;
  /** manual: assignment mode; undefined = the policy's default (manual: random, sticky: delegate). */
  assignmentMode: AssignmentMode | undefined;
}

export const DEFAULT_POLICY_CONFIG: PolicyConfig = {
  cacheThreshold: 0.3,
  balanceAbsThreshold: 64,
  balanceRelThreshold: 1.5,
  balanceTokenUsageThreshold: 1.0,
  overloadTokenUsageThreshold: 1.0,
  evictionIntervalSecs: 120,
  maxTreeSize: 67_108_864,
  prefixTokenCount: 256,
  prefixHashLoadFactor: 1.25,
  prefixHashBalanceAbsThreshold: 10,
  leastLoadKvPressureWeight: 0.15,
  leastLoadDefaultThroughput: 2000,
  leastLoadMeanPrefillTokens: 1024,
  leastLoadMaxWaitingRequests: 0,
  maxIdleSecs: 14_400,
  assignmentMode: undefined,
};

/**
 * What `policyConfigFrom` reads: the same keys, which the gateway config carries under the same
 * names (`--assignment-mode` may be absent there).
 */
export type PolicyFlags = Omit<PolicyConfig, 'assignmentMode'> & {
  assignmentMode?: AssignmentMode | undefined;
};

/** The policy knobs alone, so a policy holding its config holds nothing else of the gateway's. */
export function policyConfigFrom(c: PolicyFlags): PolicyConfig {
  return {
    cacheThreshold: c.cacheThreshold,
    balanceAbsThreshold: c.balanceAbsThreshold,
    balanceRelThreshold: c.balanceRelThreshold,
    balanceTokenUsageThreshold: c.balanceTokenUsageThreshold,
    overloadTokenUsageThreshold: c.overloadTokenUsageThreshold,
    evictionIntervalSecs: c.evictionIntervalSecs,
    maxTreeSize: c.maxTreeSize,
    prefixTokenCount: c.prefixTokenCount,
    prefixHashLoadFactor: c.prefixHashLoadFactor,
    prefixHashBalanceAbsThreshold: c.prefixHashBalanceAbsThreshold,
    leastLoadKvPressureWeight: c.leastLoadKvPressureWeight,
    leastLoadDefaultThroughput: c.leastLoadDefaultThroughput,
    leastLoadMeanPrefillTokens: c.leastLoadMeanPrefillTokens,
    leastLoadMaxWaitingRequests: c.leastLoadMaxWaitingRequests,
    maxIdleSecs: c.maxIdleSecs,
    assignmentMode: c.assignmentMode,
  };
}
