/**
 * `switchyard launch` argv -> GatewayConfig, acting on each given flag's status: an unsupported
 * flag (or an unsupported value of a no-effect flag) is a usage error naming its subsystem, and
 * the no-effect flags given are returned so `launch` can warn about them once.
 */
import { UsageError, parseFlagsTracked, type RawFlags } from '@switchyard/kit';
import type { GatewayFlag } from './flag-status.js';
import { GATEWAY_FLAGS } from './gateway-flags.js';
import { buildConfigWithWarnings } from './validate.js';
import type { GatewayConfig } from './schema.js';

export interface LaunchFlags {
  readonly config: GatewayConfig;
  /** No-effect flags given, as typed (`--block-size`), once each, in argv order. */
  readonly noEffect: readonly string[];
  /** One line per input SMG accepts but ignores or reads its own way (ignored-inputs.ts). */
  readonly warnings: readonly string[];
}

const refusal = (flag: string, subsystem: string): string =>
  `${flag}: ${subsystem} is not supported by Switchyard (see docs/compat.md)`;

export function resolveLaunchFlags(
  argv: readonly string[],
  table: readonly GatewayFlag[] = GATEWAY_FLAGS,
): LaunchFlags {
  const { values, given } = parseFlagsTracked(argv, table);
  const noEffect: string[] = [];
  for (const { spec, typed } of given) {
    const flag = table.find((f) => f.name === spec.name);
    if (flag?.status === 'unsupported') throw new UsageError(refusal(`--${typed}`, flag.subsystem));
    const value = flag && values[flag.key];
    if (typeof value === 'string' && flag?.unsupportedValues?.values.includes(value)) {
      throw new UsageError(refusal(`--${typed} ${value}`, flag.unsupportedValues.subsystem));
    }
    if (flag?.status !== 'no-effect') continue;
    if (!noEffect.includes(`--${typed}`)) noEffect.push(`--${typed}`);
  }
  const { config, warnings } = buildConfigWithWarnings(
    onlyImplemented(values, table),
    table,
    new Set(given.map(({ spec }) => spec.key)),
  );
  return { config, noEffect, warnings };
}

/** Drops the raw values of flags that never reach GatewayConfig, defaults included. */
function onlyImplemented(values: RawFlags, table: readonly GatewayFlag[]): RawFlags {
  const out: RawFlags = { ...values };
  for (const flag of table) {
    if (flag.status === 'no-effect' || flag.status === 'unsupported') delete out[flag.key];
  }
  return out;
}
