/**
 * Prometheus' own parser as a second opinion on PromQL: promtool has no "parse this expression"
 * command, but `promtool check rules` parses the `expr` of every rule in a rule file, so each
 * query becomes a recording rule. The file is written as JSON, which YAML parsers accept.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PromtoolVerdict {
  ok: boolean;
  output: string;
}

export function promtoolCheckExprs(promtool: string, exprs: readonly string[]): PromtoolVerdict {
  const dir = mkdtempSync(join(tmpdir(), 'promql-'));
  try {
    const file = join(dir, 'rules.json');
    const rules = exprs.map((expr, i) => ({ record: `query:${i}`, expr }));
    writeFileSync(file, JSON.stringify({ groups: [{ name: 'queries', rules }] }, null, 2));
    const run = spawnSync(promtool, ['check', 'rules', '--lint=none', file], { encoding: 'utf8' });
    if (run.error) return { ok: false, output: String(run.error) };
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
