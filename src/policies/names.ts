import type { PolicyConfig } from './policy-config.js';

/** Policy names Switchyard implements, accepted by `--policy`. */
export const POLICY_NAMES = [
  'random',
  'round_robin',
  'passthrough',
  'cache_aware',
  'power_of_two',
  'least_load',
  'prefix_hash',
  'consistent_hashing',
  'manual',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** `--prefill-policy` / `--decode-policy`: SMG offers every policy there but `passthrough` (main.rs:473-477). */
export const LEG_POLICY_NAMES = [
  'random',
  'round_robin',
  'cache_aware',
  'power_of_two',
  'least_load',
  'prefix_hash',
  'consistent_hashing',
  'manual',
] as const satisfies readonly PolicyName[];

/**
 * SMG policies Switchyard does not implement. They parse (an SMG command line is recognised),
 * then `launch` refuses them with one line instead of running another policy in their place.
 */
export const UNSUPPORTED_POLICY_NAMES = ['bucket'] as const;

/** Manual/sticky assignment modes (`--assignment-mode`). */
export const ASSIGNMENT_MODES = ['random', 'min_load', 'min_group', 'delegate'] as const;
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];

/**
 * Whether the policy reads engine loads (so they must be polled): the load-based policies
 * always, cache_aware only when one of its KV-usage gates is on (a threshold below 1.0).
 */
export function policyReadsLoads(
  name: PolicyName,
  cfg: Pick<PolicyConfig, 'balanceTokenUsageThreshold' | 'overloadTokenUsageThreshold'>,
): boolean {
  switch (name) {
    case 'least_load':
    case 'power_of_two':
      return true;
    case 'cache_aware':
      return cfg.balanceTokenUsageThreshold < 1 || cfg.overloadTokenUsageThreshold < 1;
    case 'random':
    case 'round_robin':
    case 'passthrough':
    case 'prefix_hash':
    case 'consistent_hashing':
    case 'manual':
      return false;
  }
}
