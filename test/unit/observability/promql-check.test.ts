// The PromQL checker the Grafana dashboard test relies on: it accepts the query shapes the
// dashboard uses and rejects each kind of mistake that would make a panel show "No data"
// (a misspelt or bare histogram name, a label the series lack, a grouping that drops the label
// an outer query needs, a value no series has), so the dashboard test fails when it should.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkQuery } from '../../helpers/promql/check.js';
import { parsePromql } from '../../helpers/promql/parse.js';
import { catalogOf } from '../../helpers/scrape-catalog.js';

const catalog = catalogOf(
  [
    '# TYPE smg_worker_requests_active gauge',
    'smg_worker_requests_active{worker="http://10.0.0.1:8000"} 2',
    'smg_worker_health{worker="http://10.0.0.1:8000"} 1',
    'smg_pd_admission_waits_total 0',
    'smg_http_requests_total{method="GET",path="/workers/{worker_id}"} 1',
    'smg_http_responses_total{path="/v1/chat/completions",status_code="200",error_code=""} 3',
    'smg_router_ttft_seconds_bucket{le="0.1",model="m",endpoint="chat"} 1',
    'smg_router_ttft_seconds_sum{model="m",endpoint="chat"} 0.05',
    'smg_router_ttft_seconds_count{model="m",endpoint="chat"} 1',
    'smg_router_weight{model="m",router_type="http-pd"} 2',
    'smg_router_weight{model="m",router_type="http-regular"} 1',
    'smg_odd{quote="say \\"hi\\", then \\\\"} 1',
  ].join('\n'),
);

function problems(expr: string): string[] {
  return checkQuery(expr, catalog).problems;
}

function assertAccepted(expr: string, labels: string[]): void {
  const result = checkQuery(expr, catalog);
  assert.deepEqual(result.problems, [], expr);
  assert.deepEqual([...(result.labels ?? [])].sort(), labels.sort(), expr);
}

function assertRejected(expr: string, pattern: RegExp): void {
  const found = problems(expr);
  assert.ok(
    found.some((p) => pattern.test(p)),
    `${expr}: expected a problem matching ${String(pattern)}, got ${JSON.stringify(found)}`,
  );
}

test('the scrape catalog keeps sample names, label names and unescaped values', () => {
  assert.deepEqual([...(catalog.get('smg_pd_admission_waits_total')?.keys() ?? [])], []);
  assert.ok(catalog.get('smg_http_requests_total')?.get('path')?.has('/workers/{worker_id}'));
  assert.ok(catalog.get('smg_odd')?.get('quote')?.has('say "hi", then \\'));
  assert.ok(catalog.has('smg_router_ttft_seconds_bucket'));
  assert.equal(catalog.has('smg_router_ttft_seconds'), false, 'a histogram has no bare samples');
});

test('the query shapes the dashboard uses are accepted, with the labels they return', () => {
  assertAccepted('sum by (worker) (smg_worker_requests_active{worker=~"$worker"})', ['worker']);
  assertAccepted(
    'histogram_quantile(0.99, sum by (le, model) (rate(smg_router_ttft_seconds_bucket{model=~"$model"}[$__rate_interval])))',
    ['model'],
  );
  assertAccepted('sum by (error_code) (rate(smg_http_responses_total{error_code!=""}[5m]))', [
    'error_code',
  ]);
  assertAccepted('rate(smg_pd_admission_waits_total[1h30m])', []);
  assertAccepted('count(smg_worker_health == 0) or vector(0)', []);
  assertAccepted(
    'smg_router_weight{router_type="http-pd"} / ignoring(router_type) sum without(router_type) (smg_router_weight)',
    ['model'],
  );
  assertAccepted(
    'sum(rate(smg_router_ttft_seconds_sum[5m])) / sum(rate(smg_router_ttft_seconds_count[5m]))',
    [],
  );
  assertAccepted('smg_worker_health * on(worker) group_left smg_worker_requests_active', [
    'worker',
  ]);
  assertAccepted('topk(3, smg_worker_requests_active)', ['worker']);
  assertAccepted('-1 * 2 ^ 3 ^ 2', []);
});

test('PromQL precedence decides which side of an operator a grouping applies to', () => {
  const node = parsePromql('a + b * c or d');
  assert.equal(node.kind, 'binary');
  if (node.kind !== 'binary') return;
  assert.equal(node.op, 'or');
  assert.equal(node.lhs.kind === 'binary' && node.lhs.op, '+');
});

test('a misspelt metric is rejected', () => {
  assertRejected('sum(rate(smg_worker_retry_total[5m]))', /no series named smg_worker_retry_total/);
});

test('a metric SMG no longer exports (absent from the scrape) is rejected', () => {
  assertRejected('rate(smg_router_tokens_total[5m])', /no series named smg_router_tokens_total/);
});

test('a histogram selected without its _bucket/_sum/_count suffix is rejected', () => {
  assertRejected('rate(smg_router_ttft_seconds[5m])', /is a histogram/);
});

test('a label the series do not have is rejected, in matchers and in groupings', () => {
  assertRejected('smg_worker_health{worker_type="prefill"}', /has no label worker_type/);
  assertRejected('sum by (model) (smg_worker_requests_active)', /by \(model\): no such label/);
  assertRejected('sum without (model) (smg_worker_requests_active)', /without \(model\)/);
});

test('a label an inner aggregation already dropped is rejected', () => {
  assertRejected('sum by (worker) (sum(smg_worker_requests_active))', /by \(worker\)/);
  assertRejected(
    'histogram_quantile(0.9, sum by (model) (rate(smg_router_ttft_seconds_bucket[5m])))',
    /without le/,
  );
});

test('le outside a _bucket series is rejected', () => {
  assertRejected('histogram_quantile(0.5, rate(smg_router_ttft_seconds_count[5m]))', /without le/);
});

test('an equality matcher on a value no series has is rejected; regexes and variables are not', () => {
  assertRejected('smg_router_weight{router_type="http_pd"}', /router_type="http_pd"/);
  assert.deepEqual(problems('smg_router_weight{router_type=~"http_.*"}'), []);
  assert.deepEqual(problems('smg_router_weight{model="$model"}'), []);
});

test('vector operands whose labels cannot match are rejected', () => {
  assertRejected('smg_router_weight / smg_worker_health', /no series would match/);
  assertRejected('smg_router_weight / on(worker) smg_worker_health', /worker is not a label/);
  assertRejected(
    'smg_worker_health * group_left smg_worker_requests_active',
    /needs on\(\) or ignoring\(\)/,
  );
});

test('wrong argument types, unknown functions and unsupported syntax are rejected', () => {
  assertRejected('rate(smg_pd_admission_waits_total)', /takes one range vector/);
  assertRejected('sum(smg_pd_admission_waits_total[5m])', /needs an instant vector/);
  assertRejected('smg_pd_admission_waits_total[5m]', /result is a matrix/);
  assertRejected('rate(smg_pd_admission_waits_total[five])', /not a duration/);
  assertRejected('label_replace(smg_worker_health, "a", "$1", "worker", "(.*)")', /unsupported/);
  assertRejected('smg_worker_health offset 5m', /does not parse/);
  assertRejected('{worker="x"}', /does not parse/);
  assertRejected('sum(smg_worker_health', /does not parse/);
});
