/**
 * A small table-driven argv parser. node:util parseArgs cannot express SMG's variadic flags
 * (`--worker-urls a b c`) or its optional trailing port (`--prefill URL [PORT]`), and the table
 * doubles as the source of `--help`, so every flag's default is printed from one place. The
 * gateway's flags and the simulator's (`switchyard sim`) are both tables of FlagSpecs parsed here.
 */

/**
 * `list` is SMG's `num_args = 0..`: every value up to the next flag, none included.
 * `append` is SMG's `ArgAction::Append`: exactly one value per occurrence, repeatable.
 */
export type FlagKind = 'string' | 'int' | 'float' | 'bool' | 'list' | 'append' | 'enum';

export interface FlagSpec {
  /** Flag name without dashes, e.g. `worker-urls`. */
  readonly name: string;
  /** Key in the raw config object. */
  readonly key: string;
  readonly kind: FlagKind;
  readonly help: string;
  readonly default?: string | number | boolean | readonly string[] | undefined;
  readonly choices?: readonly string[];
  /** Value placeholder in help output. */
  readonly metavar?: string;
  readonly aliases?: readonly string[];
  /**
   * Custom consumer for flags whose arity depends on the following token (SMG's
   * `--prefill URL [PORT|none]`). Gets the tokens after the flag, returns the value and how many
   * tokens it used.
   */
  readonly consume?: (rest: readonly string[]) => { value: unknown; used: number };
  /**
   * Extra rule on each raw value, after the kind's own check (SMG's clap value parsers, e.g. a
   * u16 range). Returns the rule the value breaks, e.g. `expects an integer in 0..65535`.
   */
  readonly check?: (value: string) => string | undefined;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export type RawFlags = Record<string, unknown>;

function findSpec(specs: readonly FlagSpec[], name: string): FlagSpec | undefined {
  return specs.find((s) => s.name === name || (s.aliases?.includes(name) ?? false));
}

function convert(spec: FlagSpec, value: string): unknown {
  const converted = convertKind(spec, value);
  const broken = spec.check?.(value);
  if (broken !== undefined) throw new UsageError(`--${spec.name} ${broken}, got '${value}'`);
  return converted;
}

function convertKind(spec: FlagSpec, value: string): unknown {
  const flag = `--${spec.name}`;
  switch (spec.kind) {
    case 'int': {
      if (!/^-?\d+$/.test(value))
        throw new UsageError(`${flag} expects an integer, got '${value}'`);
      return Number(value);
    }
    case 'float': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) {
        throw new UsageError(`${flag} expects a number, got '${value}'`);
      }
      return n;
    }
    case 'bool': {
      if (value === 'true') return true;
      if (value === 'false') return false;
      throw new UsageError(`${flag} expects true or false, got '${value}'`);
    }
    case 'enum': {
      if (!spec.choices?.includes(value)) {
        throw new UsageError(
          `${flag} must be one of ${spec.choices?.join(', ') ?? ''}, got '${value}'`,
        );
      }
      return value;
    }
    case 'string':
    case 'list':
    case 'append':
      return value;
  }
}

const isFlagToken = (token: string): boolean => token.startsWith('--');

/** A flag as it appeared in argv: its spec and the name typed (the spec's name or an alias). */
export interface GivenFlag {
  readonly spec: FlagSpec;
  readonly typed: string;
}

/** Parses argv against the table. Defaults are filled for every flag not given. */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): RawFlags {
  return parseFlagsTracked(argv, specs).values;
}

/** As parseFlags, and also lists the flags given, in argv order, so callers can act on their status. */
export function parseFlagsTracked(
  argv: readonly string[],
  specs: readonly FlagSpec[],
): { values: RawFlags; given: GivenFlag[] } {
  const out: RawFlags = {};
  const given: GivenFlag[] = [];
  for (const spec of specs) {
    if (spec.default !== undefined) {
      out[spec.key] = Array.isArray(spec.default) ? [...(spec.default as string[])] : spec.default;
    }
  }
  const seenLists = new Set<string>();
  let i = 0;
  while (i < argv.length) {
    const token = argv[i] ?? '';
    if (!isFlagToken(token)) throw new UsageError(`unexpected argument '${token}'`);
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const spec = findSpec(specs, name);
    if (!spec) throw new UsageError(`unknown flag --${name}`);
    given.push({ spec, typed: name });
    i += 1;
    if (spec.consume) {
      const rest = inline === undefined ? argv.slice(i) : [inline, ...argv.slice(i)];
      const { value, used } = spec.consume(rest);
      if (used < 1) throw new UsageError(`--${spec.name} expects a value`);
      const list = seenLists.has(spec.key) ? (out[spec.key] as unknown[]) : [];
      seenLists.add(spec.key);
      out[spec.key] = [...list, value];
      i += inline === undefined ? used : used - 1;
      continue;
    }
    if (spec.kind === 'bool') {
      // SMG's clap flags are SetTrue, which takes no value: `--dp-aware=false` is an error there,
      // so it is one here rather than a silent `false`.
      if (inline !== undefined)
        throw new UsageError(`--${spec.name} takes no value, got '${inline}'`);
      out[spec.key] = true;
      continue;
    }
    if (spec.kind === 'list') {
      // Variadic (none or more values) and repeatable: `--worker-urls a b --worker-urls c` gives
      // [a, b, c]; the first occurrence replaces the default.
      const values: unknown[] = seenLists.has(spec.key) ? (out[spec.key] as unknown[]) : [];
      seenLists.add(spec.key);
      if (inline !== undefined) values.push(convert(spec, inline));
      while (i < argv.length && !isFlagToken(argv[i] ?? ''))
        values.push(convert(spec, argv[i++] ?? ''));
      out[spec.key] = values;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i];
      // A single-dash token such as `-1` is a value (negative number), not a flag.
      if (next === undefined || isFlagToken(next)) {
        throw new UsageError(`--${spec.name} expects a value`);
      }
      value = next;
      i += 1;
    }
    if (spec.kind === 'append') {
      // One value per occurrence: `--decode a --decode b`; a second bare value is a stray argument.
      const values: unknown[] = seenLists.has(spec.key) ? (out[spec.key] as unknown[]) : [];
      seenLists.add(spec.key);
      out[spec.key] = [...values, convert(spec, value)];
      continue;
    }
    out[spec.key] = convert(spec, value);
  }
  return { values: out, given };
}

function formatDefault(spec: FlagSpec): string {
  const d = spec.default;
  if (d === undefined) return '';
  if (Array.isArray(d)) return d.length === 0 ? '' : ` [default: ${d.join(' ')}]`;
  if (d === false) return '';
  return ` [default: ${String(d)}]`;
}

/** Renders a help screen listing every flag with its default. */
export function formatHelp(title: string, usage: string, specs: readonly FlagSpec[]): string {
  const rows = specs.map((spec) => {
    const metavar =
      spec.kind === 'bool'
        ? ''
        : ` ${spec.metavar ?? (spec.choices ? `<${spec.choices.join('|')}>` : '<' + spec.kind + '>')}`;
    return { left: `  --${spec.name}${metavar}`, right: `${spec.help}${formatDefault(spec)}` };
  });
  const width = Math.min(48, Math.max(...rows.map((r) => r.left.length)) + 2);
  const lines = rows.map((r) =>
    r.left.length + 1 > width
      ? `${r.left}\n${' '.repeat(width)}${r.right}`
      : r.left.padEnd(width) + r.right,
  );
  return `${title}\n\nUsage: ${usage}\n\nOptions:\n${lines.join('\n')}\n`;
}
