// Tables printed as GitHub Markdown, so the terminal output can be pasted into docs/benchmarks.md
// unchanged. Numbers are right-aligned; the first column is left-aligned.

export type Cell = string | number;

/** Formats a number for a table: fixed decimals, thousands kept plain, NaN shown as "–". */
export function fmt(v: number, digits = 1): string {
  if (!Number.isFinite(v)) return '–';
  return v.toFixed(digits);
}

/** "1.23×" style ratio; "–" when either side is missing. */
export function ratio(a: number, b: number, digits = 2): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '–';
  return `${(a / b).toFixed(digits)}×`;
}

/** "+0.42" style signed difference. */
export function delta(a: number, b: number, digits = 2): string {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return '–';
  const d = a - b;
  return `${d >= 0 ? '+' : ''}${d.toFixed(digits)}`;
}

export function markdownTable(head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((r) => r.map(String));
  const widths = head.map((h, c) => Math.max(h.length, 3, ...text.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((v, c) => (c === 0 ? v.padEnd(widths[c] ?? 0) : v.padStart(widths[c] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (c === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...text.map(line)].join('\n');
}

export function printTable(
  title: string,
  head: readonly string[],
  rows: readonly (readonly Cell[])[],
): void {
  console.log(`\n#### ${title}\n`);
  console.log(markdownTable(head, rows));
}
