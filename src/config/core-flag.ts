/**
 * The shape of an implemented flag, and the policy-flag helper the flag tables share. SMG flags
 * Switchyard accepts without effect, or refuses, are typed in flag-status.ts.
 */
import type { FlagSpec } from '@switchyard/kit';
import { UNSUPPORTED_POLICY_NAMES } from '../policies/names.js';
import type { UnsupportedValues } from './flag-status.js';

/** Implemented flags; the ones SMG does not have are marked `switchyard-only`. */
export type CoreFlag = FlagSpec & {
  readonly status?: 'switchyard-only';
  readonly unsupportedValues?: UnsupportedValues;
};

/** SMG's policy values parse; the ones not implemented here are refused by `launch`. */
const UNSUPPORTED_POLICIES: UnsupportedValues = {
  values: UNSUPPORTED_POLICY_NAMES,
  subsystem: 'the bucket policy',
};

export const policyFlag = (
  choices: readonly string[],
): Pick<CoreFlag, 'kind' | 'choices' | 'unsupportedValues'> => ({
  kind: 'enum',
  choices: [...choices, ...UNSUPPORTED_POLICY_NAMES],
  unsupportedValues: UNSUPPORTED_POLICIES,
});
