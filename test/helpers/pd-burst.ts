/**
 * The over-window PD burst of seed 001, scaled down: `count` `/generate` requests sent at once,
 * each answered by its status (`ok`, else the gateway's error code), while the decode engine's
 * running count is sampled.
 */
import assert from 'node:assert/strict';
import { postJson } from './http.js';
import type { PdSetup } from './pd-fleet.js';

export async function sendBurst(
  pd: PdSetup,
  count: number,
  samplingParams: Record<string, unknown>,
): Promise<{ codes: string[]; maxRunning: number }> {
  const decode = pd.decodes[0];
  assert.ok(decode);
  let maxRunning = 0;
  const sampler = setInterval(() => {
    maxRunning = Math.max(maxRunning, decode.stats().running);
  }, 2);
  try {
    const codes = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await postJson(`${pd.gateway.url}/generate`, {
          text: `burst request ${i}`,
          sampling_params: samplingParams,
        });
        await res.arrayBuffer();
        return res.status === 200
          ? 'ok'
          : (res.headers.get('x-smg-error-code') ?? String(res.status));
      }),
    );
    return { codes, maxRunning };
  } finally {
    clearInterval(sampler);
  }
}
