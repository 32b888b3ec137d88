// With prefill admission on, x-smg-target-worker pins the prefill slot only under
// consistent_hashing (the one policy that reads it, as in SMG); under another policy a pin that
// names no worker is ignored instead of leaving the request queued until its timeout.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoLeakedLoad } from '../../helpers/gateway.js';
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

test('consistent_hashing still holds a pin to a worker that does not exist', async () => {
  const res = await postJson(`${hashing.gateway.url}/v1/completions`, body, {
    'x-smg-target-worker': '7',
  });
  await assertGatewayError(res, 429, 'pd_prefill_queue_timeout');
  const ok = await postJson(`${hashing.gateway.url}/v1/completions`, body, {
    'x-smg-target-worker': '0',
  });
  assert.equal(ok.status, 200, await ok.clone().text());
  await ok.arrayBuffer();
  await assertNoLeakedLoad(roundRobin.gateway);
  await assertNoLeakedLoad(hashing.gateway);
});
