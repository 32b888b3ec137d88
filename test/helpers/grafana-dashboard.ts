/**
 * Reads deploy/grafana/switchyard.json for its test: the queries of every panel and template
 * variable, and the structural problems Grafana would choke on or silently show as empty panels
 * (duplicate panel ids, targets without refId or expr, a datasource other than the dashboard's
 * own variable, an undefined `$variable`, overlapping panels).
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

interface DatasourceRef {
  type?: string;
  uid?: string;
}

interface Target {
  refId?: unknown;
  expr?: unknown;
  legendFormat?: unknown;
  datasource?: DatasourceRef;
}

interface Panel {
  id?: unknown;
  type?: string;
  title?: string;
  gridPos?: { x: number; y: number; w: number; h: number };
  datasource?: DatasourceRef;
  targets?: Target[];
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
  datasource?: DatasourceRef;
}

export interface Dashboard {
  uid?: unknown;
  title?: unknown;
  schemaVersion?: unknown;
  panels: Panel[];
  templating: { list: Variable[] };
}

/** A panel query, named for failure messages as `#id "title" refId`. */
export interface PanelQuery {
  where: string;
  expr: string;
  legendFormat: string | undefined;
}

/** The datasource variable every panel, target and query variable must point at. */
export const DATASOURCE_VARIABLE = 'datasource';
const DATASOURCE_REF = { type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` };
/** Grafana's own interval variables, defined without a templating entry. */
const BUILTIN_VARIABLES = new Set(['__rate_interval', '__interval', '__range']);
const VARIABLE_USE = /\$(?:\{(\w+)(?::\w+)?\}|(\w+))/g;

export function loadDashboard(path: string): Dashboard {
  return JSON.parse(readFileSync(path, 'utf8')) as Dashboard;
}

/** Every panel, rows and the panels inside collapsed rows included. */
function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

export function rowTitles(d: Dashboard): string[] {
  return d.panels.filter((p) => p.type === 'row').map((p) => p.title ?? '');
}

export function panelQueries(d: Dashboard): PanelQuery[] {
  return allPanels(d).flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      where: `#${String(p.id)} "${p.title ?? ''}" ${String(t.refId)}`,
      expr: typeof t.expr === 'string' ? t.expr : '',
      legendFormat: typeof t.legendFormat === 'string' ? t.legendFormat : undefined,
    })),
  );
}

/** The query text of each query variable (Grafana stores it as a string or inside an object). */
export function variableQueries(d: Dashboard): { name: string; query: string }[] {
  return d.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => ({
      name: v.name,
      query: typeof v.query === 'string' ? v.query : (v.query?.query ?? ''),
    }));
}

/** `label_values(selector, label)`; undefined for any other variable query. */
export function parseLabelValues(query: string): { selector: string; label: string } | undefined {
  const m = /^\s*label_values\(\s*(.+)\s*,\s*([A-Za-z_]\w*)\s*\)\s*$/.exec(query);
  return m ? { selector: m[1] ?? '', label: m[2] ?? '' } : undefined;
}

/** The labels a legend prints (`{{worker}} to {{to}}` → worker, to). */
export function legendLabels(legend: string | undefined): string[] {
  return [...(legend ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1] ?? '');
}

/** The query as Prometheus would receive it with every variable at "All" and a 5m interval. */
export function withVariablesSet(expr: string): string {
  return expr.replace(VARIABLE_USE, (_, braced?: string, bare?: string) =>
    BUILTIN_VARIABLES.has(braced ?? bare ?? '') ? '5m' : '.*',
  );
}

function overlap(a: NonNullable<Panel['gridPos']>, b: NonNullable<Panel['gridPos']>): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function panelProblems(d: Dashboard): string[] {
  const problems: string[] = [];
  const ids = new Set<unknown>();
  const placed: { title: string; pos: NonNullable<Panel['gridPos']> }[] = [];
  for (const p of allPanels(d)) {
    const name = `panel #${String(p.id)} "${p.title ?? ''}"`;
    if (!Number.isInteger(p.id) || ids.has(p.id)) problems.push(`${name}: id missing or repeated`);
    ids.add(p.id);
    const pos = p.gridPos;
    if (pos === undefined || pos.x < 0 || pos.w < 1 || pos.x + pos.w > 24)
      problems.push(`${name}: gridPos outside the 24-column grid`);
    else {
      for (const other of placed)
        if (overlap(pos, other.pos)) problems.push(`${name} overlaps "${other.title}"`);
      placed.push({ title: p.title ?? '', pos });
    }
    if (p.type === 'row') continue;
    if (!isDeepStrictEqual(p.datasource, DATASOURCE_REF))
      problems.push(`${name}: datasource is not the $${DATASOURCE_VARIABLE} variable`);
    const targets = p.targets ?? [];
    if (targets.length === 0) problems.push(`${name}: no targets`);
    const refIds = new Set<unknown>();
    for (const t of targets) {
      if (typeof t.refId !== 'string' || t.refId === '' || refIds.has(t.refId))
        problems.push(`${name}: a target's refId is missing or repeated`);
      refIds.add(t.refId);
      if (typeof t.expr !== 'string' || t.expr.trim() === '')
        problems.push(`${name} ${String(t.refId)}: no expr`);
      if (!isDeepStrictEqual(t.datasource, DATASOURCE_REF))
        problems.push(`${name} ${String(t.refId)}: datasource is not the panel's`);
    }
  }
  return problems;
}

function variableProblems(d: Dashboard): string[] {
  const problems: string[] = [];
  const vars = d.templating.list;
  const ds = vars.find((v) => v.name === DATASOURCE_VARIABLE);
  if (ds?.type !== 'datasource' || ds.query !== 'prometheus')
    problems.push(`no "${DATASOURCE_VARIABLE}" variable of type datasource for prometheus`);
  for (const v of vars.filter((x) => x.type === 'query'))
    if (!isDeepStrictEqual(v.datasource, DATASOURCE_REF))
      problems.push(`variable ${v.name}: datasource is not the $${DATASOURCE_VARIABLE} variable`);
  const defined = new Set(vars.map((v) => v.name));
  const texts = [...panelQueries(d).map((q) => q.expr), ...variableQueries(d).map((q) => q.query)];
  for (const text of texts)
    for (const m of text.matchAll(VARIABLE_USE)) {
      const name = m[1] ?? m[2] ?? '';
      if (!defined.has(name) && !BUILTIN_VARIABLES.has(name))
        problems.push(`$${name} is not a dashboard variable: ${text}`);
    }
  return problems;
}

/** Everything wrong with the dashboard's shape; empty for an importable dashboard. */
export function structureProblems(d: Dashboard): string[] {
  const problems: string[] = [];
  if (typeof d.uid !== 'string' || d.uid === '') problems.push('no uid');
  if (typeof d.title !== 'string' || d.title === '') problems.push('no title');
  if (typeof d.schemaVersion !== 'number' || d.schemaVersion < 36)
    problems.push('schemaVersion missing or older than Grafana 9');
  return [...problems, ...panelProblems(d), ...variableProblems(d)];
}
