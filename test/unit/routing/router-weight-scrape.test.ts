// The IGW weight gauge is refreshed at scrape time through the hook the manager registers,
// not through a field the composition root patches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { RouterManager } from '../../../src/routing/router-manager.js';
import { routerChoiceMetricHooks } from '../../../src/routing/router-metrics.js';
import { seededRandom } from '@switchyard/kit';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { testWorker } from '../../helpers/workers.js';
import { FakeRouter } from './router-manager-fixtures.js';

test('a scrape reports the weights of a model no request has reached yet', async () => {
  const metrics = new GatewayMetrics();
  const registry = new WorkerRegistry(metrics);
  new RouterManager({
    registry,
    regular: new FakeRouter('http-regular'),
    pd: new FakeRouter('http-pd'),
    weightMode: 'paired',
    random: seededRandom(1),
    metrics: routerChoiceMetricHooks(metrics),
  });
  registry.add(testWorker('r1', { type: 'regular', models: ['m'] }));
  const text = await metrics.render();
  assert.match(text, /smg_router_weight\{model="m",router_type="http-regular"\} 1/);
  assert.match(text, /smg_router_weight\{model="m",router_type="http-pd"\} 0/);
});

test('the manager hands its weight report to onScrape once, when it is built', () => {
  const given: (() => void)[] = [];
  const reported: string[] = [];
  const registry = new WorkerRegistry(new GatewayMetrics());
  registry.add(testWorker('r1', { type: 'regular', models: ['m'] }));
  new RouterManager({
    registry,
    regular: new FakeRouter('http-regular'),
    weightMode: 'paired',
    random: seededRandom(1),
    metrics: {
      onChoice: () => undefined,
      onWeights: (model) => reported.push(model),
      onScrape: (report) => given.push(report),
    },
  });
  assert.equal(given.length, 1);
  given[0]?.();
  assert.deepEqual(reported, ['m']);
});
