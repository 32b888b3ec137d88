/**
 * What a Prometheus text exposition holds, as a query checker needs it: for every sample name
 * (a histogram's `_bucket`, `_sum` and `_count` each as its own name, as Prometheus stores
 * them), the label names seen on its samples and the values each took.
 */

/** Sample name → label name → values seen. */
export type SeriesCatalog = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

const SAMPLE_NAME = /^[A-Za-z_:][A-Za-z0-9_:]*/;
/** One `name="value"` pair and the comma after it; values escape `\\`, `\"` and `\n`. */
const LABEL_PAIR = /\s*([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** The labels of one sample line (`name{a="x",b="y"} 1`), from after the name. */
function parseLabels(line: string, from: number): Map<string, string> {
  const labels = new Map<string, string>();
  if (line[from] !== '{') return labels;
  // A failed sticky match resets lastIndex, so the position is kept here.
  let pos = from + 1;
  for (;;) {
    LABEL_PAIR.lastIndex = pos;
    const m = LABEL_PAIR.exec(line);
    if (!m) break;
    labels.set(m[1] ?? '', unescape(m[2] ?? ''));
    pos = LABEL_PAIR.lastIndex;
  }
  if (line[pos] !== '}') throw new Error(`cannot read the labels of: ${line}`);
  return labels;
}

export function catalogOf(exposition: string): SeriesCatalog {
  const catalog = new Map<string, Map<string, Set<string>>>();
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const name = SAMPLE_NAME.exec(line)?.[0];
    if (name === undefined) throw new Error(`not a sample line: ${line}`);
    const labels = catalog.get(name) ?? new Map<string, Set<string>>();
    catalog.set(name, labels);
    for (const [label, value] of parseLabels(line, name.length)) {
      const values = labels.get(label) ?? new Set<string>();
      labels.set(label, values);
      values.add(value);
    }
  }
  return catalog;
}
