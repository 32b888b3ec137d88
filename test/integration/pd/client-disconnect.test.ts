// A client that leaves aborts the PD legs still running at once and releases everything the
// request held: both load leases, the prefill admission slot and the decode room claim.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { waitForStats } from '@switchyard/sim/testing';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import {
  decodeRoomsClaimed,
  prefillSlotsHeld,
  startAdmittedPdSetup,
  type PdSetup,
  type PdSetupOptions,
} from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

// Prefill admission and a known decode window are on, so the request holds a slot and a claim.
async function setup(opts: PdSetupOptions): Promise<PdSetup> {
  const s = await startAdmittedPdSetup(opts);
  setups.push(s);
  return s;
}

async function openStream(pd: PdSetup, ac: AbortController) {
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
  res.body.on('error', () => undefined);
  return res;
}

test('leaving mid-stream aborts the decode and frees every lease', async () => {
  const pd = await setup({ decode: { itlMs: 50 } });
  const ac = new AbortController();
  const res = await openStream(pd, ac);
  const it = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  await it.next();
  const decodeWorker = pd.gateway.internals.registry.ofType('decode')[0];
  assert.equal(decodeWorker?.load, 1);
  assert.equal(decodeRoomsClaimed(pd), 1, 'the decode room is claimed while streaming');
  ac.abort();
  const d = pd.decodes[0];
  assert.ok(d);
  const stats = await waitForStats(d, (s) => s.aborted === 1 && s.running === 0, 3000);
  assert.equal(stats.completed, 0);
  await assertAllReleased(pd.gateway);
  assert.equal(decodeRoomsClaimed(pd), 0);
});

test('leaving during the prefill aborts both legs and returns the slot and the claim', async () => {
  // The prefill takes 10 s: the client leaves while both legs are still open.
  const pd = await setup({ prefill: { ttftMs: 10_000 } });
  const ac = new AbortController();
  const sent = openStream(pd, ac).catch(() => undefined);
  await waitFor(
    () => prefillSlotsHeld(pd) === 1 && decodeRoomsClaimed(pd) === 1,
    'the request to hold a prefill slot and a decode claim',
  );
  ac.abort();
  await sent;
  const p = pd.prefills[0];
  assert.ok(p);
  await waitForStats(p, (s) => s.running === 0, 3000);
  await assertAllReleased(pd.gateway);
  assert.equal(prefillSlotsHeld(pd), 0, 'the prefill slot came back');
  assert.equal(decodeRoomsClaimed(pd), 0, 'the decode claim came back');
});
