// Flags of `switchyard sim`, parsed by hand so that every error is one line naming the flag
// (node:util parseArgs words its errors for positionals). The table lives in cli-flag-table.ts.
import type { SimWorkerOptions } from './options.js';
import type { FlagSpec } from './cli-flag-table.js';
import { FLAGS } from './cli-flag-table.js';

export function usage(): string {
  let text = 'usage: switchyard sim [flags]\n';
  for (const [name, spec] of Object.entries(FLAGS)) {
    const arg = spec.kind === 'enum' ? (spec.choices ?? []).join('|') : (spec.arg ?? '');
    const left = `  --${name}${arg === '' ? '' : ' ' + arg}`;
    text += `${left.padEnd(40)} ${spec.help}\n`;
  }
  return text;
}

export class FlagError extends Error {}

export type FlagValues = Map<string, string | number | boolean>;

export function parseFlags(argv: readonly string[]): FlagValues {
  const values: FlagValues = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new FlagError(`error: unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
    if (spec === undefined) throw new FlagError(`error: unknown flag --${name}`);
    if (spec.kind === 'bool') {
      if (eq !== -1) throw new FlagError(`error: --${name} takes no value`);
      values.set(name, true);
      continue;
    }
    const raw = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw new FlagError(`error: --${name} expects a value`);
    values.set(name, convert(name, spec, raw));
  }
  return values;
}

function convert(name: string, spec: FlagSpec, raw: string): string | number | boolean {
  if (spec.kind === 'string') return raw;
  if (spec.kind === 'enum') {
    const choices = spec.choices ?? [];
    if (!choices.includes(raw)) {
      throw new FlagError(`error: --${name} expects one of ${choices.join(', ')}, got '${raw}'`);
    }
    if (raw === 'true' || raw === 'false') return raw === 'true';
    return raw;
  }
  const value = raw.trim() === '' ? Number.NaN : Number(raw);
  const wantInt = spec.kind === 'int';
  if (!Number.isFinite(value) || (wantInt && !Number.isInteger(value))) {
    throw new FlagError(
      `error: --${name} expects ${wantInt ? 'an integer' : 'a number'}, got '${raw}'`,
    );
  }
  if (
    (spec.min !== undefined && value < spec.min) ||
    (spec.max !== undefined && value > spec.max)
  ) {
    const range =
      spec.max === undefined ? `>= ${spec.min}` : `in [${spec.min ?? '-inf'}, ${spec.max}]`;
    throw new FlagError(`error: --${name} expects a value ${range}, got '${raw}'`);
  }
  return value;
}

/**
 * Refuses a flag that would silently do nothing on the engine the workers run (`--engine`,
 * default canned): a benchmark run with `--prefill-tps` on canned workers, or `--ttft-ms` on
 * realistic ones, would measure something else than its author meant.
 */
export function checkEngineFlags(values: FlagValues): void {
  const engine = (values.get('engine') as string | undefined) ?? 'canned';
  for (const name of values.keys()) {
    const only = FLAGS[name]?.engine;
    if (only !== undefined && only !== engine) {
      throw new FlagError(
        `error: --${name} has no effect on the ${engine} engine; it sets the ${only} engine (add --engine ${only})`,
      );
    }
  }
}

/** Worker options (faults included) from the flags that map onto them. */
export function toWorkerOptions(values: FlagValues): SimWorkerOptions {
  const opts: Record<string, unknown> = {};
  const faults: Record<string, unknown> = {};
  for (const [name, value] of values) {
    const to = FLAGS[name]?.to;
    if (to === undefined) continue;
    if ('option' in to) opts[to.option] = value;
    else faults[to.fault] = value;
  }
  if (Object.keys(faults).length > 0) opts['faults'] = faults;
  return opts;
}
