// A decode that sends its 2xx head and then dies before any byte reached the client (while its
// prefill is still answering, or while the relay waits for the prefill's logprobs) is a decode
// leg failure: retried on a new pair, or answered with a `decode_*` status, never with
// `502 upstream_stream_failed` (which is only ever an SSE event after bytes went out).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { waitForStats } from '@switchyard/sim/testing';
import type { SimFaults } from '@switchyard/sim';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup, type PdSetupOptions } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

// Prefill admission on, so the test can check its slots are given back. The request deadline
// only bounds how long the code before this fix waited for the hanging prefill.
const ADMISSION = ['--prefill-max-inflight-requests-per-worker', '4'];
// Far above anything a passing test waits for: an answer before them comes from the gateway.
const LONG = { bootstrapTimeoutSecs: 120, waitingTimeoutSecs: 300 };
// The decode dies right after its head; the prefill is still answering (it never sends a head).
const DECODE_DIES: SimFaults = { dropAfterHead: true, maxFires: 1 };
const PREFILL_STILL_ANSWERING: SimFaults = { hang: true, maxFires: 1 };

async function setup(opts: PdSetupOptions): Promise<PdSetup> {
  const pd = await startPdSetup({
    ...opts,
    flags: [...ADMISSION, '--request-timeout-secs', '5', ...(opts.flags ?? [])],
  });
  setups.push(pd);
  return pd;
}

const chat = (stream: boolean, extra: Record<string, unknown> = {}) => ({
  model: 'sim-model',
  messages: [{ role: 'user' as const, content: 'decode dies before its first byte' }],
  max_tokens: 4,
  stream,
  ...extra,
});

/** Every lease of the request is back: loads, prefill admission slots, decode room claims. */
async function assertNothingHeld(pd: PdSetup): Promise<void> {
  await assertAllReleased(pd.gateway);
  const { prefillAdmission, decodeAdmission } = pd.gateway.internals;
  const registry = pd.gateway.internals.registry;
  const slots = () =>
    registry.ofType('prefill').reduce((n, w) => n + (prefillAdmission?.inflight(w) ?? 0), 0);
  const claims = () =>
    registry.ofType('decode').reduce((n, w) => n + (decodeAdmission?.claimed(w.key) ?? 0), 0);
  await waitFor(() => slots() === 0 && claims() === 0, 'slots and claims released').catch(
    () => undefined,
  );
  assert.equal(slots(), 0, 'prefill admission slots');
  assert.equal(claims(), 0, 'decode room claims');
  const m = await scrapeMetrics(pd.gateway);
  for (const w of registry.ofType('decode'))
    assert.equal(metricValue(m, 'smg_pd_admission_claimed_rooms', { worker: w.url }) ?? 0, 0);
  for (const w of registry.ofType('prefill'))
    assert.equal(metricValue(m, 'smg_pd_prefill_admission_inflight', { worker: w.url }) ?? 0, 0);
}

function breakerFailures(pd: PdSetup, type: 'prefill' | 'decode', url?: string): number {
  const workers = pd.gateway.internals.registry.ofType(type);
  return workers.find((w) => url === undefined || w.url === url)?.circuit.consecutiveFailures ?? -1;
}

for (const stream of [false, true]) {
  test(`retries off, prefill still answering: the client gets 502 decode_read_failed (stream: ${stream})`, async () => {
    const pd = await setup({
      prefill: { ...LONG, faults: PREFILL_STILL_ANSWERING },
      decode: { ...LONG, faults: DECODE_DIES },
      flags: ['--disable-retries'],
    });
    await assertGatewayError(
      await postJson(`${pd.gateway.url}/v1/chat/completions`, chat(stream)),
      502,
      'decode_read_failed',
    );
    assert.equal(breakerFailures(pd, 'decode'), 1, 'the decode breaker is told');
    assert.equal(breakerFailures(pd, 'prefill'), 0, 'the aborted prefill is charged nothing');
    const p = pd.prefills[0];
    assert.ok(p);
    await waitForStats(p, (s) => s.running === 0, 3000);
    assert.equal(p.stats().aborted, 1, 'the prefill partner was aborted, not left hanging');
    await assertNothingHeld(pd);
  });

  test(`retries off, relay waiting for the prefill's logprobs: 502 decode_read_failed (stream: ${stream})`, async () => {
    const pd = await setup({
      prefill: LONG,
      decode: { ...LONG, faults: DECODE_DIES },
      flags: ['--disable-retries'],
    });
    await assertGatewayError(
      await postJson(`${pd.gateway.url}/v1/chat/completions`, chat(stream, { logprobs: true })),
      502,
      'decode_read_failed',
    );
    assert.equal(breakerFailures(pd, 'decode'), 1);
    assert.equal(breakerFailures(pd, 'prefill'), 0);
    const p = pd.prefills[0];
    assert.ok(p);
    await waitForStats(p, (s) => s.running === 0 && s.roomsOpen === 0, 3000);
    assert.equal(p.stats().bootstrapTimeouts, 0, 'the prefill room was aborted, not timed out');
    await assertNothingHeld(pd);
  });

  test(`retries on: retried on another pair and the client sees a normal answer (stream: ${stream})`, async () => {
    const pd = await setup({
      decodes: 2,
      prefill: { ...LONG, faults: PREFILL_STILL_ANSWERING },
      decode: LONG,
      flags: ['--retry-initial-backoff-ms', '1'],
    });
    // Round robin on the decode leg starts with the first registered decode.
    const firstUrl = pd.gateway.internals.registry.ofType('decode')[0]?.url;
    const dying = pd.decodes.find((d) => d.url === firstUrl);
    const other = pd.decodes.find((d) => d.url !== firstUrl);
    assert.ok(dying && other);
    dying.setFaults(DECODE_DIES);
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });
    let text = '';
    if (stream) {
      const events = await client.chat.completions.create({ ...chat(true), stream: true });
      for await (const event of events) text += event.choices[0]?.delta.content ?? '';
    } else {
      const done = await client.chat.completions.create({ ...chat(false), stream: false });
      text = done.choices[0]?.message.content ?? '';
    }
    assert.ok(text.length > 0, 'a normal answer');
    const m = await scrapeMetrics(pd.gateway);
    // A PD retry is counted once per leg, as SMG counts it.
    assert.equal(
      metricValue(m, 'smg_worker_retries_total', { worker_type: 'prefill' }),
      1,
      'one retry',
    );
    assert.equal(
      metricValue(m, 'smg_worker_retries_total', { worker_type: 'decode' }),
      1,
      'one retry',
    );
    assert.equal(breakerFailures(pd, 'decode', dying.url), 1, 'the dying decode is charged');
    assert.equal(breakerFailures(pd, 'decode', other.url), 0);
    assert.equal(other.stats().completed, 1, 'the retry ran on the other decode');
    await assertNothingHeld(pd);
  });
}
