// Helpers for the flag tables (cli-flag-table.ts, cli-grpc-flags.ts): the spec type, the
// option/fault targets and the numeric range check.
import type { FlagSpec } from '@switchyard/kit';
import type { SimEngineKind, SimFaults, SimWorkerOptions } from './options.js';

export interface SimFlagSpec extends FlagSpec {
  /** Target field: a worker option or a fault; none for fleet-level settings (--port, --count). */
  readonly to?: { option: keyof SimWorkerOptions } | { fault: keyof SimFaults };
  /** The one engine this flag has an effect on; on the other one it is refused. */
  readonly engine?: SimEngineKind;
  /** Set on flags only a gRPC worker reads; refused without `--protocol grpc`. */
  readonly grpcOnly?: true;
}

/** Choices of an enum flag whose value is a boolean (`--prefix-cache false`). */
export const TRUE_FALSE: readonly string[] = ['true', 'false'];

export const opt = (option: keyof SimWorkerOptions) => ({ option });
export const fault = (f: keyof SimFaults) => ({ fault: f });

/** The value is read back under the flag's own name, so `key` is the name. */
export const flag = (name: string, spec: Omit<SimFlagSpec, 'name' | 'key'>): SimFlagSpec => ({
  name,
  key: name,
  ...spec,
});

/** A numeric range as a kit `check`; runs after the kind has checked the value is a number. */
export function range(min: number, max?: number): (value: string) => string | undefined {
  const rule = max === undefined ? `>= ${min}` : `in [${min}, ${max}]`;
  return (value) => {
    const n = Number(value);
    return n < min || (max !== undefined && n > max) ? `expects a value ${rule}` : undefined;
  };
}
