/**
 * A reader of the Prometheus text exposition format (what `/metrics` serves), enough for the
 * dashboard to compute its frames from the same text a scrape sees: sample lines with optional
 * labels, escaped label values, and the special values `+Inf`, `-Inf` and `NaN`. Comment lines
 * (`# HELP`, `# TYPE`) and timestamps are not needed and are skipped.
 */

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

/** Samples by series name (a histogram's `_bucket`, `_sum` and `_count` are three names). */
export type Samples = ReadonlyMap<string, readonly Sample[]>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parseExposition(text: string): Samples {
  const out = new Map<string, Sample[]>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseLine(line);
    if (!sample) continue;
    let list = out.get(sample.name);
    if (!list) out.set(sample.name, (list = []));
    list.push({ labels: sample.labels, value: sample.value });
  }
  return out;
}

function parseLine(line: string): { name: string; labels: Labels; value: number } | undefined {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) return undefined;
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i = readLabels(line, i + 1, labels);
    if (i < 0) return undefined;
  }
  const fields = line.slice(i).trim().split(/\s+/);
  const value = parseValue(fields[0] ?? '');
  return value === undefined ? undefined : { name, labels, value };
}

/** Reads `a="x",b="y"}` from `start`; returns the index after `}` or -1 when malformed. */
function readLabels(line: string, start: number, into: Record<string, string>): number {
  let i = start;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return i + 1;
    const name = NAME.exec(line.slice(i))?.[0];
    if (name === undefined || line[i + name.length] !== '=' || line[i + name.length + 1] !== '"')
      return -1;
    i += name.length + 2;
    let value = '';
    for (;;) {
      const c = line[i];
      if (c === undefined) return -1;
      i++;
      if (c === '"') break;
      if (c === '\\') {
        const next = line[i++];
        value += next === 'n' ? '\n' : (next ?? '');
      } else {
        value += c;
      }
    }
    into[name] = value;
  }
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (text === '') return undefined;
  const n = Number(text);
  return Number.isNaN(n) ? undefined : n;
}
