// IGW end to end: one gateway serves two models of different shapes, each weighted by its own
// workers; /generate must name a model; a model nobody serves is 404.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, metricValue, scrapeMetrics } from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { chat, IgwFleet, pdAnswers, startIgwGateway } from '../helpers/igw-fleet.js';

let gateway: Gateway;
let fleet: IgwFleet;

before(async () => {
  gateway = await startIgwGateway({ seed: 9 });
  fleet = new IgwFleet(gateway);
  // alpha is served disaggregated only, beta by regular workers only.
  await fleet.add('prefill', 'alpha');
  await fleet.add('decode', 'alpha');
  await fleet.addMany('regular', 'beta', 2);
});
after(async () => fleet.close());

/** Chat requests served by the workers of one model. */
function chatsServedBy(model: string): number {
  return [...fleet.sims.values()]
    .filter((s) => s.model === model)
    .reduce((n, s) => n + (s.stats().requests['/v1/chat/completions'] ?? 0), 0);
}

test('each model is routed by its own workers', async () => {
  assert.equal(await pdAnswers(fleet, gateway, 'alpha', 40), 40);
  assert.equal(await pdAnswers(fleet, gateway, 'beta', 40), 0);
  assert.equal(chatsServedBy('beta'), 40, 'beta traffic reached beta workers only');
  assert.equal(chatsServedBy('alpha'), 80, 'alpha traffic reached both legs of alpha only');

  const text = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(text, 'smg_router_weight', { model: 'alpha', router_type: 'http-pd' }),
    2,
  );
  assert.equal(
    metricValue(text, 'smg_router_weight', { model: 'alpha', router_type: 'http-regular' }),
    0,
  );
  assert.equal(
    metricValue(text, 'smg_router_weight', { model: 'beta', router_type: 'http-pd' }),
    0,
  );
  assert.equal(
    metricValue(text, 'smg_router_weight', { model: 'beta', router_type: 'http-regular' }),
    2,
  );
  assert.equal(
    metricValue(text, 'smg_router_selection_total', { router_type: 'http-pd', model: 'alpha' }),
    40,
  );
  assert.equal(
    metricValue(text, 'smg_router_selection_total', { router_type: 'http-regular', model: 'beta' }),
    40,
  );
  assert.equal(
    metricValue(text, 'smg_router_selection_total', {
      router_type: 'http-regular',
      model: 'alpha',
    }),
    undefined,
  );
  await assertAllReleased(gateway);
});

test('/generate without a model is 400 missing_model; with one it is routed', async () => {
  await assertGatewayError(
    await postJson(`${gateway.url}/generate`, {
      text: 'hi',
      sampling_params: { max_new_tokens: 2 },
    }),
    400,
    'missing_model',
  );
  for (const model of ['alpha', 'beta']) {
    const res = await postJson(`${gateway.url}/generate`, {
      model,
      text: 'hi',
      sampling_params: { max_new_tokens: 2 },
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal(fleet.roleOf(res), model === 'alpha' ? 'decode' : 'regular');
  }
  await assertAllReleased(gateway);
});

test('a model no worker serves is 404 model_not_found, and never becomes a metric label', async () => {
  await assertGatewayError(await chat(gateway, 'gamma'), 404, 'model_not_found');
  const text = await scrapeMetrics(gateway);
  assert.equal(metricValue(text, 'smg_router_weight', { model: 'gamma' }), undefined);
});
