// PD /health_generate probes one prefill+decode pair as SMG's PD router does: GET /health_generate
// on both, 200 text naming the pair, 503 health_generate_failed when either side fails, and 503
// no_healthy_worker_pair when there is no pair to probe.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAllReleased } from '../../helpers/gateway.js';
import { assertGatewayError } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

let pd: PdSetup;
before(async () => {
  pd = await startPdSetup();
});
after(async () => pd.close());

const probes = (w: { stats(): { requests: Record<string, number> } } | undefined): number =>
  w?.stats().requests['/health_generate'] ?? 0;

test('a healthy pair: both workers are probed, 200 with the pair named', async () => {
  const [prefill] = pd.prefills;
  const [decode] = pd.decodes;
  const res = await fetch(`${pd.gateway.url}/health_generate`);
  assert.equal(res.status, 200);
  assert.equal(
    await res.text(),
    `Health generate passed on selected pair: prefill=${prefill?.url}, decode=${decode?.url}`,
  );
  assert.equal(probes(prefill), 1);
  assert.equal(probes(decode), 1);
});

test('a failing decode: 503 health_generate_failed naming it', async () => {
  const [decode] = pd.decodes;
  assert.ok(decode);
  decode.setFaults({ healthStatus: 503 });
  try {
    const error = await assertGatewayError(
      await fetch(`${pd.gateway.url}/health_generate`),
      503,
      'health_generate_failed',
    );
    assert.match(error.message, /^Health generate failed: /);
    assert.ok(error.message.includes(`Decode ${decode.url} returned status 503`), error.message);
    assert.ok(!error.message.includes('Prefill'), error.message);
  } finally {
    decode.setFaults({});
  }
  await assertAllReleased(pd.gateway);
});

test('no decode worker to pair with: 503 no_healthy_worker_pair', async () => {
  const prefillOnly = await startPdSetup({ decodes: 0 });
  try {
    await assertGatewayError(
      await fetch(`${prefillOnly.gateway.url}/health_generate`),
      503,
      'no_healthy_worker_pair',
    );
    assert.equal(probes(prefillOnly.prefills[0]), 0);
  } finally {
    await prefillOnly.close();
  }
});
