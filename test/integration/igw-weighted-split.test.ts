// IGW end to end: a model served by regular and PD simulators splits its traffic by available
// capacity (2 prefill + 2 decode + 6 regular → about 40 % PD), the choice counter and weight gauge
// say so, and the gauge follows workers that join and leave through the worker API.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import type { SimWorker } from '@switchyard/sim';
import { assertAllReleased, metricValue, scrapeMetrics } from '../helpers/gateway.js';
import { assertShare } from '../helpers/share.js';
import { IgwFleet, pdAnswers, startIgwGateway } from '../helpers/igw-fleet.js';

const MODEL = 'split-model';
const N = 300;

let gateway: Gateway;
let fleet: IgwFleet;
let regulars: SimWorker[];

before(async () => {
  gateway = await startIgwGateway({ seed: 11 });
  fleet = new IgwFleet(gateway);
  await fleet.addMany('prefill', MODEL, 2);
  await fleet.addMany('decode', MODEL, 2);
  regulars = await fleet.addMany('regular', MODEL, 6);
});
after(async () => fleet.close());

async function weight(routerType: string): Promise<number | undefined> {
  return metricValue(await scrapeMetrics(gateway), 'smg_router_weight', {
    model: MODEL,
    router_type: routerType,
  });
}

test('2 prefill + 2 decode + 6 regular workers send about 40 % of requests to PD', async () => {
  const pd = await pdAnswers(fleet, gateway, MODEL, N);
  assertShare(pd, N, 0.4, 'PD share');
  const text = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(text, 'smg_router_selection_total', { router_type: 'http-pd', model: MODEL }),
    pd,
  );
  assert.equal(
    metricValue(text, 'smg_router_selection_total', { router_type: 'http-regular', model: MODEL }),
    N - pd,
  );
  assert.equal(await weight('http-pd'), 4);
  assert.equal(await weight('http-regular'), 6);
  await assertAllReleased(gateway);
});

// The split itself, as the fleet changes, is unit-tested (router-manager-split.test.ts); here the
// worker API's joins and leaves must reach the weights, without sending another round.
test('the weight gauge follows workers removed and added through the worker API', async () => {
  for (const sim of regulars.slice(0, 4)) await fleet.remove(sim);
  assert.equal(await weight('http-regular'), 2);
  await fleet.addMany('regular', MODEL, 4);
  assert.equal(await weight('http-regular'), 6);
  await fleet.add('prefill', MODEL);
  assert.equal(await weight('http-pd'), 4, 'paired: 3 prefill + 2 decode still weigh 2·2');
  await fleet.add('decode', MODEL);
  assert.equal(await weight('http-pd'), 6);
});
