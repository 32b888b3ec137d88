// A client that leaves mid-stream aborts the decode leg at once and releases both leases.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { waitForStats } from '@switchyard/sim/testing';
import { assertNoLeakedLoad, waitFor } from '../../helpers/gateway.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

let pd: PdSetup;
before(async () => {
  pd = await startPdSetup({ decode: { itlMs: 50 } });
});
after(async () => pd.close());

test('leaving mid-stream aborts the decode and frees every lease', async () => {
  const ac = new AbortController();
  const res = await request(`${pd.gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({
      model: 'sim-model',
      prompt: 'a long story',
      max_tokens: 300,
      stream: true,
    }),
  });
  assert.equal(res.statusCode, 200);
  const it = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  await it.next();
  const decodeWorker = pd.gateway.internals.registry.ofType('decode')[0];
  assert.equal(decodeWorker?.load, 1);
  ac.abort();
  const d = pd.decodes[0];
  assert.ok(d);
  const stats = await waitForStats(d, (s) => s.aborted === 1 && s.running === 0, 3000);
  assert.equal(stats.completed, 0);
  await waitFor(
    () => pd.gateway.internals.registry.all().every((w) => w.load === 0),
    'leases released',
  );
  await assertNoLeakedLoad(pd.gateway);
});
