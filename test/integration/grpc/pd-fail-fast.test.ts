// Fail fast over gRPC (acceptance B3): the first PD leg that fails answers the client at once
// with `prefill_worker_failed_to_start` / `decode_worker_failed_to_start` (status from the gRPC
// code), its partner (left hanging by a fault) is sent `Abort` at once, and each worker's breaker
// hears only its own leg. The admission leases both legs held come back.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { generateRequests } from '../../helpers/grpc.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { decodeRoomsClaimed, prefillSlotsHeld, type PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

const body = { model: 'qwen3', messages: [{ role: 'user', content: 'fail fast' }], max_tokens: 4 };
/** A hung partner would hold the answer forever; anything under this is the gateway failing fast. */
const AT_ONCE_MS = 1_000;

async function setup(
  prefillFaults: Record<string, unknown>,
  decodeFaults: Record<string, unknown>,
): Promise<PdSetup> {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries', '--prefill-max-inflight-requests-per-worker', '1'],
    decode: { maxRunningRequests: 4 },
  });
  setups.push(pd);
  pd.prefills[0]?.setFaults(prefillFaults);
  pd.decodes[0]?.setFaults(decodeFaults);
  return pd;
}

function breakerFailures(pd: PdSetup, type: 'prefill' | 'decode'): number | undefined {
  return pd.gateway.internals.registry.ofType(type)[0]?.circuit.consecutiveFailures;
}

test('the prefill fails at start while the decode hangs: answered at once, the decode aborted', async () => {
  const pd = await setup({ errorRate: 1, grpcStatus: 13 }, { hang: true });
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const started = performance.now();
  const { message } = await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, body),
    500,
    'prefill_worker_failed_to_start',
  );
  const took = performance.now() - started;
  assert.ok(took < AT_ONCE_MS, `answered in ${took.toFixed(0)} ms`);
  assert.match(message, /prefill/);
  const rid = String(generateRequests(decode)[0]?.request_id);
  await waitFor(
    () => decode.grpc?.aborts.some((a) => a.requestIds.includes(rid)) === true,
    'the hung decode to be sent Abort',
    { timeoutMs: 1000 },
  );
  assert.equal(breakerFailures(pd, 'prefill'), 1, 'the failed prefill is charged');
  assert.equal(breakerFailures(pd, 'decode'), 0, 'the retired decode is not');
  await assertAllReleased(pd.gateway);
  assert.equal(prefillSlotsHeld(pd), 0);
  assert.equal(decodeRoomsClaimed(pd), 0);
});

test('the mirror: the decode fails at start while the prefill hangs', async () => {
  const pd = await setup({ hang: true }, { errorRate: 1, grpcStatus: 14 });
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const started = performance.now();
  await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, body),
    503,
    'decode_worker_failed_to_start',
  );
  const took = performance.now() - started;
  assert.ok(took < AT_ONCE_MS, `answered in ${took.toFixed(0)} ms`);
  const rid = String(generateRequests(prefill)[0]?.request_id);
  await waitFor(
    () => prefill.grpc?.aborts.some((a) => a.requestIds.includes(rid)) === true,
    'the hung prefill to be sent Abort',
    { timeoutMs: 1000 },
  );
  assert.equal(breakerFailures(pd, 'decode'), 1, 'the failed decode is charged');
  assert.equal(breakerFailures(pd, 'prefill'), 0, 'the retired prefill is not');
  await assertAllReleased(pd.gateway);
  assert.equal(prefillSlotsHeld(pd), 0);
  assert.equal(decodeRoomsClaimed(pd), 0);
});

test('a prefill whose rendezvous expires fails the pair with its own code, not the decode deadline', async () => {
  // The decode is left hanging, so no decode ever joins the room: the prefill's bootstrap
  // deadline (0.3 s) is what fails the pair.
  const pd = await startGrpcPdSetup({
    runtime: 'tokenspeed',
    flags: ['--disable-retries'],
    prefill: { bootstrapTimeoutSecs: 0.3 },
  });
  setups.push(pd);
  pd.decodes[0]?.setFaults({ hang: true });
  const res = await postJson(`${pd.gateway.url}/v1/completions`, { model: 'qwen3', prompt: 'x' });
  await assertGatewayError(res, 500, 'prefill_worker_failed_to_start');
  assert.equal(pd.prefills[0]?.stats().bootstrapTimeouts, 1);
  await assertAllReleased(pd.gateway);
});
