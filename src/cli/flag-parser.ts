/**
 * A small table-driven argv parser. node:util parseArgs cannot express SMG's variadic flags
 * (`--worker-urls a b c`) or its optional trailing port (`--prefill URL [PORT]`), and the table
 * doubles as the source of `--help`, so every flag's default is printed from one place.
 */

export type FlagKind = 'string' | 'int' | 'float' | 'bool' | 'list' | 'enum';

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
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export type RawFlags = Record<string, unknown>;

function findSpec(specs: readonly FlagSpec[], name: string): FlagSpec | undefined {
  return specs.find((s) => s.name === name || (s.aliases?.includes(name) ?? false));
}

function convert(spec: FlagSpec, value: string): unknown {
  const flag = `--${spec.name}`;
  switch (spec.kind) {
    case 'int': {
      if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} expects an integer, got '${value}'`);
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
        throw new UsageError(`${flag} must be one of ${spec.choices?.join(', ') ?? ''}, got '${value}'`);
      }
      return value;
    }
    case 'string':
    case 'list':
      return value;
  }
}

const isFlagToken = (token: string): boolean => token.startsWith('--');

/** Parses argv against the table. Defaults are filled for every flag not given. */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): RawFlags {
  const out: RawFlags = {};
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
      out[spec.key] = inline === undefined ? true : convert(spec, inline);
      continue;
    }
    if (spec.kind === 'list') {
      // Variadic and repeatable: `--worker-urls a b --worker-urls c` gives [a, b, c]; the first
      // occurrence replaces the default.
      const values: string[] = seenLists.has(spec.key) ? (out[spec.key] as string[]) : [];
      seenLists.add(spec.key);
      if (inline !== undefined) values.push(inline);
      while (i < argv.length && !isFlagToken(argv[i] ?? '')) values.push(argv[i++] ?? '');
      if (values.length === 0) throw new UsageError(`--${spec.name} expects at least one value`);
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
    out[spec.key] = convert(spec, value);
  }
  return out;
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
    const metavar = spec.kind === 'bool' ? '' : ` ${spec.metavar ?? (spec.choices ? `<${spec.choices.join('|')}>` : '<' + spec.kind + '>')}`;
    return { left: `  --${spec.name}${metavar}`, right: `${spec.help}${formatDefault(spec)}` };
  });
  const width = Math.min(48, Math.max(...rows.map((r) => r.left.length)) + 2);
  const lines = rows.map((r) =>
    r.left.length + 1 > width ? `${r.left}\n${' '.repeat(width)}${r.right}` : r.left.padEnd(width) + r.right,
  );
  return `${title}\n\nUsage: ${usage}\n\nOptions:\n${lines.join('\n')}\n`;
}
