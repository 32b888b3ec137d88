/** Policy names accepted by `--policy`, `--prefill-policy` and `--decode-policy` (SMG's set). */
export const POLICY_NAMES = [
  'random',
  'round_robin',
  'cache_aware',
  'power_of_two',
  'least_load',
  'prefix_hash',
  'consistent_hashing',
  'manual',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** Manual/sticky assignment modes (`--assignment-mode`). */
export const ASSIGNMENT_MODES = ['random', 'min_load', 'min_group', 'delegate'] as const;
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];
