// deploy/grafana/switchyard.json against a real gateway: after regular and PD traffic (with
// retries, an open circuit, prefill queueing and a decode shed), every metric a panel or
// variable queries has samples in /metrics under that exact name, every label it matches,
// groups by or prints in a legend is on those series, and Prometheus' own parser accepts every
// query. SMG's bundled dashboard queries families SMG no longer exports; this keeps ours honest.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAllReleased, scrapeMetrics } from '../../helpers/gateway.js';
import {
  legendLabels,
  loadDashboard,
  panelQueries,
  parseLabelValues,
  rowTitles,
  structureProblems,
  variableQueries,
  withVariablesSet,
  type Dashboard,
} from '../../helpers/grafana-dashboard.js';
import {
  driveObservedTraffic,
  startObservedFleet,
  type ObservedFleet,
} from '../../helpers/observed-fleet.js';
import { checkQuery } from '../../helpers/promql/check.js';
import { promtoolCheckExprs } from '../../helpers/promtool-rules.js';
import { repoPath } from '../../helpers/repo-root.js';
import { catalogOf, type SeriesCatalog } from '../../helpers/scrape-catalog.js';

const dashboard: Dashboard = loadDashboard(repoPath('deploy', 'grafana', 'switchyard.json'));
let fleet: ObservedFleet;
let catalog: SeriesCatalog;

before(async () => {
  fleet = await startObservedFleet();
  await driveObservedTraffic(fleet);
  catalog = catalogOf(await scrapeMetrics(fleet.gateway));
});

after(async () => {
  await fleet.close();
});

test('the dashboard is importable: unique ids, refIds, exprs and one datasource variable', () => {
  assert.deepEqual(structureProblems(dashboard), []);
  assert.deepEqual(rowTitles(dashboard), [
    'Fleet',
    'Admission',
    'PD',
    'Retries and circuits',
    'Latency and traffic',
    'Regular/PD split',
  ]);
});

test('every panel query selects metrics and labels the scrape has', () => {
  const queries = panelQueries(dashboard);
  assert.ok(queries.length > 40, `only ${queries.length} queries found`);
  const problems: string[] = [];
  for (const { where, expr, legendFormat } of queries) {
    const result = checkQuery(expr, catalog);
    problems.push(...result.problems.map((p) => `${where}: ${p}`));
    for (const label of legendLabels(legendFormat))
      if (!result.labels?.has(label))
        problems.push(`${where}: the legend prints {{${label}}}, which the result does not have`);
  }
  assert.deepEqual(problems, []);
});

test('the check rejects a misspelt metric against the same scrape', () => {
  const result = checkQuery('sum(rate(smg_worker_retry_total[5m]))', catalog);
  assert.deepEqual(result.problems, ['no series named smg_worker_retry_total in the scrape']);
});

test('every variable is label_values of a metric and label the scrape has', () => {
  const queries = variableQueries(dashboard);
  assert.deepEqual(queries.map((q) => q.name).sort(), ['model', 'worker']);
  for (const { name, query } of queries) {
    const parsed = parseLabelValues(query);
    assert.ok(parsed, `variable ${name}: not label_values(metric, label): ${query}`);
    const result = checkQuery(parsed.selector, catalog);
    assert.deepEqual(result.problems, [], `variable ${name}`);
    assert.ok(result.labels?.has(parsed.label), `variable ${name}: no label ${parsed.label}`);
  }
});

test('promtool parses every query', { skip: process.env.PROMTOOL === undefined }, () => {
  const exprs = [
    ...panelQueries(dashboard).map((q) => q.expr),
    ...variableQueries(dashboard).map((q) => parseLabelValues(q.query)?.selector ?? q.query),
  ].map(withVariablesSet);
  const verdict = promtoolCheckExprs(process.env.PROMTOOL ?? 'promtool', exprs);
  assert.ok(verdict.ok, verdict.output);
});

test('the traffic left nothing held', async () => {
  await assertAllReleased(fleet.gateway);
});
