// A PD pair that cannot be selected is SMG's retryable 503 server_selection_failed, whatever the
// reason: no decode worker, no worker for the model, or no healthy worker on a leg.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

let prefillOnly: PdSetup;
let pair: PdSetup;

before(async () => {
  prefillOnly = await startPdSetup({ decodes: 0 });
  pair = await startPdSetup({
    flags: [
      '--health-check-interval-secs',
      '1',
      '--health-check-timeout-secs',
      '1',
      '--health-failure-threshold',
      '1',
      '--health-success-threshold',
      '1',
    ],
  });
});
after(async () => {
  await prefillOnly.close();
  await pair.close();
});

const body = (model: string) => ({ model, prompt: 'x', max_tokens: 1 });

test('no decode worker: 503 server_selection_failed, retried first', async () => {
  const error = await assertGatewayError(
    await postJson(`${prefillOnly.gateway.url}/v1/completions`, body('sim-model')),
    503,
    'server_selection_failed',
  );
  assert.match(error.message, /No available servers: No decode workers/);
  const text = await scrapeMetrics(prefillOnly.gateway);
  assert.ok(
    (metricValue(text, 'smg_worker_retries_total', { worker_type: 'decode' }) ?? 0) >= 1,
    'the selection failure was retried',
  );
});

test('a model no PD worker serves: 503 server_selection_failed, not 404', async () => {
  await assertGatewayError(
    await postJson(`${pair.gateway.url}/v1/completions`, body('no-such-model')),
    503,
    'server_selection_failed',
  );
});

test('no healthy decode worker: 503 server_selection_failed', async () => {
  const decode = pair.decodes[0];
  assert.ok(decode);
  decode.setFaults({ healthStatus: 503 });
  await waitFor(
    () => pair.gateway.internals.registry.all().some((w) => w.type === 'decode' && !w.isHealthy),
    'the decode worker to be unhealthy',
    4000,
  );
  await assertGatewayError(
    await postJson(`${pair.gateway.url}/v1/completions`, body('sim-model')),
    503,
    'server_selection_failed',
  );
  await assertAllReleased(pair.gateway);
  await assertAllReleased(prefillOnly.gateway);
});
