// The structural checks on deploy/grafana/switchyard.json find what would break an import or
// leave a panel empty: each kind of damage to a copy of the real dashboard is reported, and the
// dashboard itself has none (its queries are checked against a real scrape in
// test/integration/observability/grafana-dashboard.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  loadDashboard,
  structureProblems,
  type Dashboard,
} from '../../helpers/grafana-dashboard.js';
import { repoPath } from '../../helpers/repo-root.js';

const original = loadDashboard(repoPath('deploy', 'grafana', 'switchyard.json'));

/** The problems of a copy of the dashboard after `damage`. */
function problemsAfter(damage: (d: Dashboard) => void): string[] {
  const copy = structuredClone(original);
  damage(copy);
  return structureProblems(copy);
}

/** The first panel that is not a row, in `d`. */
function firstPanel(d: Dashboard): Dashboard['panels'][number] {
  const panel = d.panels.find((p) => p.type !== 'row');
  assert.ok(panel);
  return panel;
}

function assertReported(problems: string[], pattern: RegExp): void {
  assert.ok(
    problems.some((p) => pattern.test(p)),
    `expected a problem matching ${String(pattern)}, got ${JSON.stringify(problems)}`,
  );
}

test('the dashboard as committed has no structural problem', () => {
  assert.deepEqual(structureProblems(original), []);
});

test('a repeated panel id is reported', () => {
  const problems = problemsAfter((d) => {
    const [a, b] = d.panels.filter((p) => p.type !== 'row');
    assert.ok(a && b);
    b.id = a.id;
  });
  assertReported(problems, /id missing or repeated/);
});

test('a target without refId or expr, or with a repeated refId, is reported', () => {
  assertReported(
    problemsAfter((d) => {
      const [t] = firstPanel(d).targets ?? [];
      assert.ok(t);
      delete t.refId;
      delete t.expr;
    }),
    /refId is missing or repeated/,
  );
  assertReported(
    problemsAfter((d) => {
      const panel = firstPanel(d);
      const [t] = panel.targets ?? [];
      assert.ok(t);
      panel.targets = [t, { ...t }];
    }),
    /refId is missing or repeated/,
  );
  assertReported(
    problemsAfter((d) => {
      const [t] = firstPanel(d).targets ?? [];
      assert.ok(t);
      t.expr = ' ';
    }),
    /no expr/,
  );
});

test('a datasource other than the dashboard variable is reported', () => {
  const fixed = { type: 'prometheus', uid: 'my-prometheus' };
  assertReported(
    problemsAfter((d) => (firstPanel(d).datasource = fixed)),
    /datasource is not the \$datasource variable/,
  );
  assertReported(
    problemsAfter((d) => {
      const [t] = firstPanel(d).targets ?? [];
      assert.ok(t);
      t.datasource = fixed;
    }),
    /datasource is not the panel's/,
  );
  assertReported(
    problemsAfter(
      (d) => (d.templating.list = d.templating.list.filter((v) => v.type !== 'datasource')),
    ),
    /no "datasource" variable/,
  );
});

test('a query using an undefined variable is reported', () => {
  const problems = problemsAfter((d) => {
    const [t] = firstPanel(d).targets ?? [];
    assert.ok(t);
    t.expr = 'sum(smg_worker_health{worker=~"$instance"})';
  });
  assertReported(problems, /\$instance is not a dashboard variable/);
});

test('overlapping or off-grid panels are reported', () => {
  assertReported(
    problemsAfter((d) => {
      const [a, b] = d.panels.filter((p) => p.type !== 'row');
      assert.ok(a?.gridPos && b);
      b.gridPos = { ...a.gridPos };
    }),
    /overlaps/,
  );
  assertReported(
    problemsAfter((d) => {
      const panel = firstPanel(d);
      assert.ok(panel.gridPos);
      panel.gridPos = { ...panel.gridPos, x: 20, w: 8 };
    }),
    /outside the 24-column grid/,
  );
});
