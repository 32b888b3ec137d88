// With prefill admission on, x-smg-target-worker pins the prefill slot only under
// consistent_hashing (the one policy that reads it, as in SMG); under another policy a pin that
// names no worker is ignored instead of leaving the request queued until its timeout. Under
// consistent_hashing a pin that names no eligible worker is SMG's target-worker miss, answered
// at once (503 server_selection_failed) and never queued, so it cannot hold up later requests.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const ADMISSION = [
  '--prefill-max-inflight-requests-per-worker',
  '1',
  '--prefill-queue-timeout-secs',
  '2',
  '--disable-retries',
];
let roundRobin: PdSetup;
let hashing: PdSetup;

before(async () => {
  roundRobin = await startPdSetup({ flags: ADMISSION });
  hashing = await startPdSetup({
    flags: [
      ...ADMISSION,
      '--prefill-policy',
      'consistent_hashing',
      '--decode-policy',
      'round_robin',
    ],
  });
});
after(async () => {
  await roundRobin.close();
  await hashing.close();
});

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

for (const target of ['7', 'first']) {
  test(`round_robin ignores x-smg-target-worker: ${target} and serves the request`, async () => {
    const res = await postJson(`${roundRobin.gateway.url}/v1/completions`, body, {
      'x-smg-target-worker': target,
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.arrayBuffer();
  });
}

for (const target of ['7', 'abc']) {
  test(`consistent_hashing answers a pin to no worker (${target}) with 503 server_selection_failed at once`, async () => {
    const res = await postJson(`${hashing.gateway.url}/v1/completions`, body, {
      'x-smg-target-worker': target,
    });
    await assertGatewayError(res, 503, 'server_selection_failed');
    const ok = await postJson(`${hashing.gateway.url}/v1/completions`, body, {
      'x-smg-target-worker': '0',
    });
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.arrayBuffer();
    const m = await scrapeMetrics(hashing.gateway);
    const timeouts = { reason: 'queue_timeout' };
    assert.equal(metricValue(m, 'smg_pd_prefill_admission_rejections_total', timeouts) ?? 0, 0);
    await assertNothingHeld(hashing);
  });
}

test('an unpinned request is not held up by a bad pin sent before it', async () => {
  const admission = hashing.gateway.internals.prefillAdmission;
  assert.ok(admission);
  let badAnswered = false;
  const bad = postJson(`${hashing.gateway.url}/v1/completions`, body, {
    'x-smg-target-worker': '7',
  }).then((r) => ((badAnswered = true), r));
  // Either the bad pin is answered, or (the old behaviour) it sits at the head of the queue.
  await waitFor(() => badAnswered || admission.queued > 0, 'the bad pin answered or queued');
  const before = await scrapeMetrics(hashing.gateway);
  const unpinned = await postJson(`${hashing.gateway.url}/v1/completions`, body);
  assert.equal(unpinned.status, 200, await unpinned.clone().text());
  await unpinned.arrayBuffer();
  await assertGatewayError(await bad, 503, 'server_selection_failed');
  // The unpinned request was placed without waiting: its one wait sample is in the le="0" bucket.
  const after = await scrapeMetrics(hashing.gateway);
  const waited = (m: string): number =>
    (metricValue(m, 'smg_pd_prefill_admission_wait_seconds_count') ?? 0) -
    (metricValue(m, 'smg_pd_prefill_admission_wait_seconds_bucket', { le: '0' }) ?? 0);
  assert.equal(waited(after) - waited(before), 0, 'the unpinned request waited in the queue');
  await assertNothingHeld(hashing);
});

/** Every lease is back: worker loads, prefill admission slots and their gauges. */
async function assertNothingHeld(pd: PdSetup): Promise<void> {
  await assertAllReleased(pd.gateway);
  const admission = pd.gateway.internals.prefillAdmission;
  assert.equal(admission?.queued, 0, 'nobody left in the prefill queue');
  const prefills = pd.gateway.internals.registry.ofType('prefill');
  const slots = (): number => prefills.reduce((n, w) => n + (admission?.inflight(w) ?? 0), 0);
  await waitFor(() => slots() === 0, 'prefill slots released').catch(() => undefined);
  assert.equal(slots(), 0, 'prefill admission slots');
  const m = await scrapeMetrics(pd.gateway);
  for (const w of prefills)
    assert.equal(metricValue(m, 'smg_pd_prefill_admission_inflight', { worker: w.url }) ?? 0, 0);
}

test('every lease is back on the round_robin gateway too', async () => {
  await assertNothingHeld(roundRobin);
});
