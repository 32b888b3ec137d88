// A non-streamed PD answer with logprobs is read whole by the gateway (to merge the prefill's
// input logprobs in front). A decode answer over the gateway's own buffering limit (16 MiB) is
// the gateway's limit, not a worker failure: answered 502 upstream_response_too_large (SMG's
// code for it), not retried (a retry reruns the whole generation), and no breaker is charged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import type { Gateway } from '../../../src/server/gateway.js';
import { startFakeSglang, type FakeSglang } from '../../helpers/fake-sglang.js';

const MODEL = 'big-model';
const GATEWAY_BUFFER_LIMIT = 16 * 1024 * 1024;

/** A fake SGLang engine whose /generate answers `answer` (200, JSON). */
function startAnswering(answer: Buffer): Promise<FakeSglang> {
  return startFakeSglang(MODEL, (res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
}

const prefillAnswer = Buffer.from(
  JSON.stringify({ text: '', meta_info: { input_token_logprobs: [[-0.5, 1, null]] } }),
);
// Just over the limit: valid JSON a real engine could send for a huge generation.
const hugeDecodeAnswer = Buffer.from(
  JSON.stringify({
    text: 'x'.repeat(GATEWAY_BUFFER_LIMIT + 1024),
    meta_info: { input_token_logprobs: [] },
  }),
);

let prefill: FakeSglang;
let decode: FakeSglang;
let gateway: Gateway;

before(async () => {
  prefill = await startAnswering(prefillAnswer);
  decode = await startAnswering(hugeDecodeAnswer);
  // Retries on (the default), so a retried answer would show as a second decode request.
  gateway = await startTestGateway([
    '--pd-disaggregation',
    '--policy',
    'round_robin',
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

test('a decode answer over the gateway buffer is 502 upstream_response_too_large, not retried, no breaker charged', async () => {
  const res = await postJson(`${gateway.url}/generate`, {
    model: MODEL,
    text: 'hello',
    sampling_params: { max_new_tokens: 4 },
    return_logprob: true,
  });
  await assertGatewayError(res, 502, 'upstream_response_too_large');
  assert.equal(decode.generates, 1, 'the generation ran once: the answer was not retried');
  const [decodeWorker] = gateway.internals.registry.ofType('decode');
  assert.equal(decodeWorker?.circuit.consecutiveFailures, 0, 'the decode breaker was not charged');
  const m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_worker_retries_total') ?? 0, 0);

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
