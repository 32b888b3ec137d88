// Flags of `switchyard sim`, parsed by the kit's table-driven parser (the gateway's), so every
// error is one line naming the flag. The table lives in cli-flag-table.ts.
import { formatHelp, parseFlags, UsageError, type RawFlags } from '@switchyard/kit';
import type { SimWorkerOptions } from './options.js';
import type { SimFlagSpec } from './cli-flag-table.js';
import { SIM_FLAGS, TRUE_FALSE } from './cli-flag-table.js';

const BY_NAME: ReadonlyMap<string, SimFlagSpec> = new Map(SIM_FLAGS.map((s) => [s.name, s]));

export function usage(): string {
  return formatHelp(
    'switchyard sim: simulated inference workers',
    'switchyard sim [options]',
    SIM_FLAGS,
  );
}

/** The flags given, under their names; none has a default, so an absent flag is absent here. */
export type FlagValues = RawFlags;

/** Parses argv; throws the kit's UsageError (one line naming the flag) on a bad flag. */
export function parseSimFlags(argv: readonly string[]): FlagValues {
  return parseFlags(argv, SIM_FLAGS);
}

/**
 * Refuses a flag that would silently do nothing on the engine the workers run (`--engine`,
 * default canned): a benchmark run with `--prefill-tps` on canned workers, or `--ttft-ms` on
 * realistic ones, would measure something else than its author meant.
 */
export function checkEngineFlags(values: FlagValues): void {
  const engine = (values['engine'] as string | undefined) ?? 'canned';
  for (const name of Object.keys(values)) {
    const only = BY_NAME.get(name)?.engine;
    if (only !== undefined && only !== engine) {
      throw new UsageError(
        `--${name} has no effect on the ${engine} engine; it sets the ${only} engine (add --engine ${only})`,
      );
    }
  }
}

/**
 * Refuses a gRPC-only flag (`--tokenizer-dir`, `--answer-text`, the gRPC faults) on HTTP
 * workers, where it would silently do nothing. With a fleet file the flags are defaults, and
 * the file may make some groups gRPC, so they are not checked there.
 */
export function checkProtocolFlags(values: FlagValues): void {
  if (values['protocol'] === 'grpc') return;
  for (const name of Object.keys(values)) {
    if (BY_NAME.get(name)?.grpcOnly === true) {
      throw new UsageError(`--${name} applies to gRPC workers only (add --protocol grpc)`);
    }
  }
}

/** Worker options (faults included) from the flags that map onto them. */
export function toWorkerOptions(values: FlagValues): SimWorkerOptions {
  const opts: Record<string, unknown> = {};
  const faults: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(values)) {
    const spec = BY_NAME.get(name);
    const to = spec?.to;
    if (to === undefined) continue;
    const value = spec?.choices === TRUE_FALSE ? raw === 'true' : raw;
    if ('option' in to) opts[to.option] = value;
    else faults[to.fault] = value;
  }
  if (Object.keys(faults).length > 0) opts['faults'] = faults;
  return opts;
}
