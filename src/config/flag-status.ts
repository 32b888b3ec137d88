/**
 * What Switchyard does with each flag of its table. SMG users copy whole command lines, so every
 * SMG flag has an entry: the ones Switchyard implements, the ones it accepts while they change
 * nothing here, and the ones it refuses because their subsystem is absent. docs/compat.md is
 * generated from these entries (scripts/gen-compat.ts).
 */
import type { FlagKind, FlagSpec } from '@switchyard/kit';
import { I32_MAX, I32_MIN, U16_MAX, U32_MAX } from '../util/rust-int-limits.js';

export type FlagStatus = 'implemented' | 'switchyard-only' | 'no-effect' | 'unsupported';

/** Values of a no-effect flag that ask for a subsystem Switchyard lacks (`--backend openai`). */
export interface UnsupportedValues {
  readonly values: readonly string[];
  /** Completes "… is not supported by Switchyard", e.g. `the cloud-provider backend`. */
  readonly subsystem: string;
}

export type GatewayFlag =
  | (FlagSpec & {
      readonly status: 'implemented' | 'switchyard-only';
      /** SMG values of the flag that Switchyard does not implement (`--policy bucket`). */
      readonly unsupportedValues?: UnsupportedValues;
    })
  | (FlagSpec & {
      readonly status: 'no-effect';
      /** Why accepting and ignoring the flag changes nothing for a request, for docs/compat.md. */
      readonly reason: string;
      readonly unsupportedValues?: UnsupportedValues;
    })
  | (FlagSpec & {
      readonly status: 'unsupported';
      /** Completes "… is not supported by Switchyard", e.g. `the HA mesh`. */
      readonly subsystem: string;
    });

/** `block-size` -> `blockSize`: the raw-config key of a flag that never reaches GatewayConfig. */
export function keyOf(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** SMG's SetTrue flags default to false, as the implemented ones here. */
export function boolDefault(kind: FlagKind): { default?: false } {
  return kind === 'bool' ? { default: false } : {};
}

/** SMG's unsigned clap types: a negative or too large value is a usage error there too. */
export function unsignedRule(max: number, min = 0): (value: string) => string | undefined {
  const range =
    max === Number.MAX_SAFE_INTEGER
      ? min === 0
        ? 'a non-negative integer'
        : `an integer >= ${min}`
      : `an integer in ${min}..${max}`;
  return (value) => (Number(value) >= min && Number(value) <= max ? undefined : `expects ${range}`);
}

export const u16 = unsignedRule(U16_MAX);
export const u32 = unsignedRule(U32_MAX);
/** u64 / usize: JavaScript numbers stop being exact past 2^53, far above any sane value. */
export const u64 = unsignedRule(Number.MAX_SAFE_INTEGER);

/** i32: SMG's `--rate-limit-tokens-per-second` and `--max-concurrent-requests` type. */
export function i32(value: string): string | undefined {
  const n = Number(value);
  return n >= I32_MIN && n <= I32_MAX ? undefined : `expects an integer in ${I32_MIN}..${I32_MAX}`;
}
