// A prefill that fails inside its 2xx body while the relay waits for its logprobs aborts the
// decode before any byte reached the client. The prefill drain counts and logs that failure;
// the attempt's failure path must not count the same pair again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../../src/server/gateway.js';
import { startFakeSglang, type FakeSglang } from '../../helpers/fake-sglang.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';

const MODEL = 'fake-model';
let prefill: FakeSglang;
let decode: FakeSglang;
let gateway: Gateway;

before(async () => {
  // The prefill's head is 2xx, its body reports the failure (a room that expired).
  prefill = await startFakeSglang(MODEL, (res) => {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: 'bootstrap room expired' } }));
  });
  // The decode sends its head and then waits for KV that never comes: no body byte.
  decode = await startFakeSglang(MODEL, (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  });
  gateway = await startTestGateway([
    '--pd-disaggregation',
    '--policy',
    'round_robin',
    '--disable-retries',
    '--prefill-max-inflight-requests-per-worker',
    '2',
    '--prefill',
    prefill.url,
    'none',
    '--decode',
    decode.url,
  ]);
  await waitForReadyWorkers(gateway, 2);
});
after(async () => {
  await gateway.close();
  await prefill.close();
  await decode.close();
});

test('one prefill failure after its head counts smg_pd_bootstrap_failures_total exactly once', async () => {
  const res = await postJson(`${gateway.url}/generate`, {
    model: MODEL,
    text: 'hello',
    sampling_params: { max_new_tokens: 4 },
    return_logprob: true,
  });
  await assertGatewayError(res, 502, 'prefill_error');
  assert.equal(prefill.generates, 1);
  assert.equal(decode.generates, 1);
  const m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_pd_bootstrap_failures_total'), 1);

  await assertAllReleased(gateway);
  const admission = gateway.internals.prefillAdmission;
  const prefills = gateway.internals.registry.ofType('prefill');
  const slots = (): number => prefills.reduce((n, w) => n + (admission?.inflight(w) ?? 0), 0);
  await waitFor(() => slots() === 0, 'prefill slots released').catch(() => undefined);
  assert.equal(slots(), 0, 'prefill admission slots');
  const final = await scrapeMetrics(gateway);
  for (const w of prefills)
    assert.equal(
      metricValue(final, 'smg_pd_prefill_admission_inflight', { worker: w.url }) ?? 0,
      0,
    );
});
