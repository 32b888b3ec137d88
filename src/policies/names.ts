/** Policy names accepted by `--policy`. Each name has an implementation in this folder. */
export const POLICY_NAMES = ['random', 'round_robin'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];
