// The over-window PD burst of seed 001 over gRPC, scaled down: 12 TokenSpeed requests against a
// decode whose running window is 4. With decode admission off the failure mode appears (prefill
// rooms expire at their bootstrap deadline and fail their pairs as a leg that failed to start, the
// partner aborted at once); with admission on nothing fails and the decode never holds more
// than its window.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { sendBurst } from '../../helpers/pd-burst.js';
import type { PdSetup } from '../../helpers/pd-fleet.js';

const WINDOW = 4;
const BURST = 12;
const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

async function burst(admission: boolean): Promise<{
  pd: PdSetup;
  ok: number;
  codes: string[];
  maxRunning: number;
}> {
  // Time scale 0.1: 400 output tokens take ~3 s simulated (0.3 s wall) per wave, longer than the
  // 2 s simulated bootstrap deadline, so rooms beyond the window cannot be joined in time.
  const common = { engine: 'realistic', timeScale: 0.1 } as const;
  const pd = await startGrpcPdSetup({
    runtime: 'tokenspeed',
    prefill: { ...common, bootstrapTimeoutSecs: 2 },
    // The decode's wait for a KV transfer: 1 s (simulated) makes the unadmitted overflow fail
    // fast; with admission on nothing should wait on it, and on a loaded 2-core machine a
    // transfer has been seen to take longer than 1 s, failing one request of the burst.
    decode: { ...common, maxRunningRequests: WINDOW, waitingTimeoutSecs: admission ? 5 : 1 },
    flags: ['--disable-retries', ...(admission ? [] : ['--disable-pd-decode-admission'])],
  });
  setups.push(pd);
  const { codes, maxRunning } = await sendBurst(pd, BURST, {
    max_new_tokens: 400,
    ignore_eos: true,
  });
  return {
    pd,
    ok: codes.filter((c) => c === 'ok').length,
    codes: codes.filter((c) => c !== 'ok'),
    maxRunning,
  };
}

test('admission off: prefill rooms expire and the overflow fails fast on the prefill leg', async () => {
  const { pd, codes, maxRunning } = await burst(false);
  assert.ok(maxRunning > WINDOW, 'without admission the decode is sent more rooms than its window');
  assert.ok(
    codes.length >= BURST - WINDOW - 2,
    `expected most of the overflow to fail, ${codes.length} failed`,
  );
  // Mostly the prefill's expired room; on a loaded machine a decode that joined in time can
  // still wait out its own (1 s) transfer deadline behind a busy prefill and fail first.
  const legs = new Set(['prefill_worker_failed_to_start', 'decode_worker_failed_to_start']);
  assert.ok(
    codes.every((c) => legs.has(c)),
    `failures: ${codes.join(', ')}`,
  );
  assert.ok(codes.includes('prefill_worker_failed_to_start'), `failures: ${codes.join(', ')}`);
  await waitFor(
    () => (pd.prefills[0]?.stats().bootstrapTimeouts ?? 0) >= 1,
    'prefill rooms expired',
    5000,
  );
  await assertAllReleased(pd.gateway);
});

test('admission on: every request succeeds and the decode never holds more than its window', async () => {
  const { pd, ok, maxRunning } = await burst(true);
  assert.equal(ok, BURST);
  assert.ok(
    maxRunning <= WINDOW,
    `the decode had ${maxRunning} requests in flight; its window is ${WINDOW}`,
  );
  assert.equal(pd.prefills[0]?.stats().bootstrapTimeouts, 0);
  assert.equal(pd.decodes[0]?.stats().transferTimeouts, 0);
  await assertAllReleased(pd.gateway);
});
