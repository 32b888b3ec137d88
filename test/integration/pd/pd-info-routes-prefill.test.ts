// In PD mode /get_server_info and /get_model_info go to a prefill worker, as SMG's PD router
// (proxy_to_first_prefill_worker), and answer 503 no_prefill_servers when there is none.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../../helpers/gateway.js';
import { assertGatewayError } from '../../helpers/http.js';
import { startPdSetup } from '../../helpers/pd-fleet.js';

let gateway: Gateway;
let prefill: SimWorker;
let decode: SimWorker;
before(async () => {
  prefill = await startSimWorker({ role: 'prefill' });
  decode = await startSimWorker({ role: 'decode' });
  gateway = await startTestGateway(['--pd-disaggregation']);
  // The decode worker is registered first, so a first-available-worker rule would pick it.
  for (const [url, type] of [
    [decode.url, 'decode'],
    [prefill.url, 'prefill'],
  ] as const) {
    const res = await fetch(`${gateway.url}/workers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url, worker_type: type }),
    });
    assert.ok(res.ok, await res.text());
  }
  await waitForReadyWorkers(gateway, 2);
  assert.equal(gateway.internals.registry.all().find((w) => w.isAvailable())?.type, 'decode');
});
after(async () => {
  await gateway.close();
  await prefill.close();
  await decode.close();
});

for (const path of ['/get_server_info', '/get_model_info']) {
  test(`${path} reaches the prefill worker`, async () => {
    const res = await fetch(`${gateway.url}${path}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-smg-routed-worker-id'), prefill.url);
    await res.arrayBuffer();
    assert.equal(prefill.stats().requests[path], 1);
    assert.equal(decode.stats().requests[path] ?? 0, 0);
  });
}

test('/get_server_info with no prefill worker: 503 no_prefill_servers', async () => {
  const decodeOnly = await startPdSetup({ prefills: 0 });
  try {
    await assertGatewayError(
      await fetch(`${decodeOnly.gateway.url}/get_server_info`),
      503,
      'no_prefill_servers',
    );
    assert.equal(decodeOnly.decodes[0]?.stats().requests['/get_server_info'] ?? 0, 0);
  } finally {
    await decodeOnly.close();
  }
  await assertAllReleased(gateway);
});
