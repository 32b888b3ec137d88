// Clients choose model names freely; a `model` label fed by them would add a set of series (one
// of them a 29-bucket histogram) per invented name and grow /metrics without bound. The label is
// the model's id only when a registered worker announces it, else `other`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { startPdSetup, type PdSetup } from '../helpers/pd-fleet.js';

let fleet: SimWorker[];
let gateway: Gateway;
let pd: PdSetup;

before(async () => {
  fleet = await startSimFleet(2, { ttftMs: 0, itlMs: 0 });
  gateway = await startTestGateway([
    '--policy',
    'round_robin',
    '--worker-urls',
    ...fleet.map((w) => w.url),
  ]);
  await waitForReadyWorkers(gateway, 2);
  // SMG's PD router answers an unknown model with a retryable 503 server_selection_failed; one
  // attempt per request keeps 200 of them quick.
  pd = await startPdSetup({ flags: ['--disable-retries'] });
});
after(async () => {
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
  await pd.close();
});

/** Regular mode answers a model no worker serves 404; PD mode, as SMG's PD router, 503. */
const UNKNOWN_MODEL_STATUS = { regular: 404, pd: 503 } as const;

async function inventedModels(target: Gateway, from: number, count: number): Promise<void> {
  const expected = target === gateway ? UNKNOWN_MODEL_STATUS.regular : UNKNOWN_MODEL_STATUS.pd;
  for (let i = from; i < from + count; i++) {
    const res = await postJson(`${target.url}/v1/chat/completions`, {
      model: `invented-${i}`,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 1,
    });
    await res.arrayBuffer();
    assert.equal(res.status, expected, `invented-${i}`);
  }
}

for (const mode of ['regular', 'pd'] as const) {
  test(`${mode}: /metrics stays the same size after 200 invented model names`, async () => {
    const target = mode === 'regular' ? gateway : pd.gateway;
    // One round first, so every series an unknown model may create exists before the baseline.
    await inventedModels(target, 0, 5);
    const baseline = await scrapeMetrics(target);
    await inventedModels(target, 5, 200);
    const text = await scrapeMetrics(target);
    assert.doesNotMatch(text, /invented-/);
    // Counter values gain a few digits; new series would add kilobytes each.
    assert.ok(
      text.length - baseline.length < 500,
      `/metrics grew from ${baseline.length} to ${text.length} bytes`,
    );
    assert.equal(
      metricValue(text, 'smg_router_request_errors_total', {
        model: 'other',
        // SMG's class of the answer's status: 404 is no_workers, 503 backend_error.
        error_type: mode === 'regular' ? 'no_workers' : 'backend_error',
      }),
      205,
    );
    await assertAllReleased(target);
  });
}

test('a model a worker announces keeps its own label', async () => {
  const res = await postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'sim-model',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 1,
  });
  assert.equal(res.status, 200, await res.text());
  const text = await scrapeMetrics(gateway);
  assert.ok((metricValue(text, 'smg_router_requests_total', { model: 'sim-model' }) ?? 0) >= 1);
});
