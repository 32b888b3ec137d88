// The cached label children update prom-client's series in place: the same event sequence, sent
// once through the children and once through prom-client's own `inc`/`observe`, must expose the
// same text. This pins the prom-client internals label-cache.ts relies on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  counterChild,
  gaugeChild,
  histogramChild,
} from '../../../src/observability/label-cache.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

function metricsPair(): {
  registry: Registry;
  counter: Counter;
  histogram: Histogram;
  gauge: Gauge;
  bare: Gauge;
} {
  const registry = new Registry();
  return {
    registry,
    gauge: new Gauge({ name: 'g', help: 'g', labelNames: ['worker'], registers: [registry] }),
    bare: new Gauge({ name: 'g_bare', help: 'g', registers: [registry] }),
    counter: new Counter({
      name: 'c_total',
      help: 'c',
      // Unsorted on purpose: prom-client keys a series by the sorted label names.
      labelNames: ['path', 'code', 'method'],
      registers: [registry],
    }),
    histogram: new Histogram({
      name: 'h_seconds',
      help: 'h',
      labelNames: ['path', 'method'],
      buckets: BUCKETS,
      registers: [registry],
    }),
  };
}

const VALUES = [0, 0.0005, 0.001, 0.005, 0.1, 0.5, 1, 7, 1e9];

test('children expose exactly what prom-client’s own calls expose', async () => {
  const viaChild = metricsPair();
  const viaPlain = metricsPair();
  const labels = { path: '/v1/completions', code: '', method: 'POST' };
  const other = { path: '/generate', code: 'bad', method: 'GET' };
  const children = {
    a: counterChild(viaChild.counter, labels),
    b: counterChild(viaChild.counter, other),
    h: histogramChild(viaChild.histogram, { path: '/v1/completions', method: 'POST' }),
    g: gaugeChild(viaChild.gauge, { worker: 'w1' }),
    bare: gaugeChild(viaChild.bare, {}),
  };
  for (const v of VALUES) {
    children.a.inc();
    children.b.inc(3);
    children.h.observe(v);
    children.g.inc(v);
    children.g.dec();
    children.bare.set(v);
    viaPlain.counter.inc(labels);
    viaPlain.counter.inc(other, 3);
    viaPlain.histogram.observe({ path: '/v1/completions', method: 'POST' }, v);
    viaPlain.gauge.inc({ worker: 'w1' }, v);
    viaPlain.gauge.dec({ worker: 'w1' });
    viaPlain.bare.set(v);
  }
  assert.equal(await viaChild.registry.metrics(), await viaPlain.registry.metrics());
  assert.match(
    await viaChild.registry.metrics(),
    /c_total\{path="\/generate",code="bad",method="GET"\} 27/,
  );
});

test('a series dropped by reset() or remove() comes back on the next use', async () => {
  const { registry, counter, histogram, gauge } = metricsPair();
  const g = gaugeChild(gauge, { worker: 'w1' });
  g.set(5);
  gauge.reset();
  g.inc();
  const labels = { path: '/x', code: '', method: 'GET' };
  const c = counterChild(counter, labels);
  const h = histogramChild(histogram, { path: '/x', method: 'GET' });
  c.inc(2);
  h.observe(0.5);
  counter.reset();
  histogram.remove({ path: '/x', method: 'GET' });
  c.inc();
  h.observe(0.05);
  const text = await registry.metrics();
  assert.match(text, /c_total\{path="\/x",code="",method="GET"\} 1\n/);
  assert.match(text, /h_seconds_count\{path="\/x",method="GET"\} 1\n/);
  assert.match(text, /h_seconds_sum\{path="\/x",method="GET"\} 0.05\n/);
  assert.match(text, /g\{worker="w1"\} 1\n/);
});

test('a value prom-client refuses is refused the same way', () => {
  const { counter, histogram } = metricsPair();
  const c = counterChild(counter, { path: '/x', code: '', method: 'GET' });
  const h = histogramChild(histogram, { path: '/x', method: 'GET' });
  c.inc();
  h.observe(1);
  assert.throws(() => c.inc(-1), /not possible to decrease a counter/);
  assert.throws(() => h.observe(Number.NaN), /not a valid number/);
});

test('a child keeps its own copy of the labels', async () => {
  const { registry, counter } = metricsPair();
  const labels = { path: '/x', code: '', method: 'GET' };
  const c = counterChild(counter, labels);
  labels.path = '/changed';
  c.inc();
  c.inc();
  assert.match(await registry.metrics(), /c_total\{path="\/x",code="",method="GET"\} 2\n/);
});
