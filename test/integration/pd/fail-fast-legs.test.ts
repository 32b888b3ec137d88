// Fail fast: the first PD leg that fails answers the client at once and its partner is aborted
// (its room freed) instead of waiting out the engine's deadline; each leg's outcome lands on its
// own breaker; a leg's upstream status keeps its class.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { waitForStats } from '@switchyard/sim/testing';
import { assertAllReleased } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import {
  decodeRoomsClaimed,
  prefillSlotsHeld,
  startAdmittedPdSetup,
  startPdSetup,
  type PdSetup,
  type PdSetupOptions,
} from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

// Prefill admission and a known decode window are on, so each request holds a prefill slot and a
// decode claim that the aborted partner must give back.
async function setup(opts: PdSetupOptions): Promise<PdSetup> {
  const s = await startAdmittedPdSetup({
    ...opts,
    flags: ['--disable-retries', ...(opts.flags ?? [])],
  });
  setups.push(s);
  return s;
}

const body = {
  model: 'sim-model',
  messages: [{ role: 'user', content: 'fail fast' }],
  max_tokens: 4,
};
// Engine deadlines of 2 s and an answer bound of 1 s: an answer inside the bound can only come
// from the gateway failing fast, and a gateway that waits for the partner's deadline fails it.
const LONG = { bootstrapTimeoutSecs: 2, waitingTimeoutSecs: 2 };
const AT_ONCE_MS = 1_000;

test('a prefill error answers at once and the waiting decode room is aborted', async () => {
  const pd = await setup({
    prefill: { ...LONG, faults: { errorRate: 1, errorStatus: 500 } },
    decode: LONG,
  });
  const started = Date.now();
  await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, body),
    500,
    'prefill_internal_error',
  );
  const took = Date.now() - started;
  assert.ok(took < AT_ONCE_MS, `answered in ${took} ms: it waited for the 2 s decode deadline`);
  const d = pd.decodes[0];
  assert.ok(d);
  await waitForStats(d, (s) => s.running === 0 && (s.aborted >= 1 || s.roomsAborted >= 1), 3000);
  const [pw, dw] = [
    pd.gateway.internals.registry.ofType('prefill')[0],
    pd.gateway.internals.registry.ofType('decode')[0],
  ];
  assert.equal(pw?.circuit.consecutiveFailures, 1, 'the failed prefill is charged');
  assert.equal(dw?.circuit.consecutiveFailures, 0, 'the aborted decode is not');
  await assertAllReleased(pd.gateway);
  assert.equal(decodeRoomsClaimed(pd), 0, "the aborted decode's room claim came back");
  assert.equal(prefillSlotsHeld(pd), 0, 'the prefill slot came back');
});

test('the mirror: a decode error answers at once and the prefill room is aborted', async () => {
  const pd = await setup({
    prefill: LONG,
    decode: { ...LONG, faults: { errorRate: 1, errorStatus: 503 } },
  });
  const started = Date.now();
  await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, body),
    503,
    'decode_unavailable',
  );
  const took = Date.now() - started;
  assert.ok(took < AT_ONCE_MS, `answered in ${took} ms: it waited for the 2 s bootstrap deadline`);
  const p = pd.prefills[0];
  assert.ok(p);
  await waitForStats(p, (s) => s.running === 0 && s.roomsOpen === 0, 3000);
  assert.equal(p.stats().bootstrapTimeouts, 0, 'the room was aborted, not timed out');
  assert.equal(pd.gateway.internals.registry.ofType('decode')[0]?.circuit.consecutiveFailures, 1);
  assert.equal(pd.gateway.internals.registry.ofType('prefill')[0]?.circuit.consecutiveFailures, 0);
  await assertAllReleased(pd.gateway);
  assert.equal(prefillSlotsHeld(pd), 0, "the aborted prefill's slot came back");
  assert.equal(decodeRoomsClaimed(pd), 0, 'the decode room claim came back');
});

test('a prefill 429 reaches the client as 429, not 500', async () => {
  const pd = await setup({ prefill: { faults: { errorRate: 1, errorStatus: 429 } } });
  await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, body),
    429,
    'prefill_too_many_requests',
  );
  await assertAllReleased(pd.gateway);
});

test('with retries on, a failed pair is retried on another pair with fresh rooms', async () => {
  const pd = await startPdSetup({
    prefills: 2,
    flags: ['--retry-initial-backoff-ms', '1'],
    prefill: LONG,
    decode: LONG,
  });
  setups.push(pd);
  const [bad, good] = pd.prefills;
  assert.ok(bad && good);
  // Round robin on the prefill leg starts with the first registered prefill.
  const first = pd.gateway.internals.registry.ofType('prefill')[0];
  const failing = first?.url === bad.url ? bad : good;
  failing.setFaults({ errorRate: 1, errorStatus: 503 });
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, body);
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const rooms = pd.decodes[0]?.stats().roomsSeen ?? [];
  assert.equal(rooms.length, 2, 'one room per attempt');
  assert.notEqual(rooms[0], rooms[1]);
  await assertAllReleased(pd.gateway);
});
