// The over-window PD burst through the gateway, scaled down: a burst of 12 TokenSpeed requests
// against a decode whose running window is 4. With decode admission off the failure mode appears
// (prefill rooms expire at their bootstrap deadline, the decodes wait out theirs), which shows the
// simulator is faithful; with admission on nothing fails and the decode never queues a room it
// cannot serve.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { sendBurst } from '../../helpers/pd-burst.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const WINDOW = 4;
const BURST = 12;
const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

async function burst(
  admission: boolean,
): Promise<{ pd: PdSetup; ok: number; failed: number; maxRunning: number }> {
  // Time scale 0.1: 400 output tokens take ~3 s simulated (0.3 s wall) per wave, longer than the
  // 2 s simulated bootstrap deadline, so rooms beyond the window cannot be joined in time.
  const common = { engine: 'realistic', timeScale: 0.1, runtime: 'tokenspeed' } as const;
  const pd = await startPdSetup({
    prefill: { ...common, bootstrapTimeoutSecs: 2 },
    // The decode's wait for a KV transfer: 1 s (simulated) makes the unadmitted overflow fail
    // fast; with admission on nothing should wait on it, and a loaded 2-core machine can take
    // longer than 1 s for a transfer.
    decode: { ...common, maxRunningRequests: WINDOW, waitingTimeoutSecs: admission ? 5 : 1 },
    flags: ['--disable-retries', ...(admission ? [] : ['--disable-pd-decode-admission'])],
  });
  setups.push(pd);
  const { codes, maxRunning } = await sendBurst(pd, BURST, { max_new_tokens: 400 });
  return {
    pd,
    ok: codes.filter((c) => c === 'ok').length,
    failed: codes.filter((c) => c !== 'ok').length,
    maxRunning,
  };
}

test('admission off: prefill rooms expire and most of the overflow fails', async () => {
  const { pd, failed, maxRunning } = await burst(false);
  assert.ok(maxRunning > WINDOW, 'without admission the decode is sent more rooms than its window');
  assert.ok(
    failed >= BURST - WINDOW - 2,
    `expected most of the overflow to fail, ${failed} failed`,
  );
  await waitFor(
    () => (pd.prefills[0]?.stats().bootstrapTimeouts ?? 0) >= 1,
    'prefill rooms expired',
    5000,
  );
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
