// Admission over gRPC PD (acceptance B6, B7): the same decode claims and prefill slots as HTTP
// PD. Decode: with a window of 2, a third concurrent request waits for a room and then runs; with
// no wait budget it is shed 503 with Retry-After. Prefill: with one slot per worker, a second
// request waits FIFO and is sent when the first prefill's terminal response arrives (not when its
// decode ends); a full queue is 429 pd_prefill_queue_full, a wait past the timeout 429
// pd_prefill_queue_timeout, neither retried; a retried attempt is admitted again.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { generateRequests } from '../../helpers/grpc.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { decodeRoomsClaimed, prefillSlotsHeld, type PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

const LONG_ANSWER = Array.from({ length: 25 }, (_, i) => `w${i}`).join(' ');
const chat = (content: string) => ({
  model: 'qwen3',
  messages: [{ role: 'user' as const, content }],
});
const client = (pd: PdSetup) =>
  new OpenAI({ apiKey: 'unused', baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });

test('decode admission: a third request waits for one of two rooms, then runs', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'tokenspeed',
    flags: ['--disable-retries'],
    decode: { maxRunningRequests: 2, itlMs: 15, answerText: LONG_ANSWER },
  });
  setups.push(pd);
  const decodeWorker = pd.gateway.internals.registry.ofType('decode')[0];
  const admission = pd.gateway.internals.decodeAdmission;
  assert.ok(decodeWorker && admission);
  const all = Promise.all(
    [1, 2, 3].map((i) => client(pd).chat.completions.create(chat(`request ${i}`))),
  );
  await waitFor(() => admission.waiting(decodeWorker) === 1, 'the third request to wait');
  assert.equal(admission.claimed(decodeWorker), 2);
  assert.equal(generateRequests(pd.decodes[0]!).length, 2, 'the third is not sent while it waits');
  const answers = await all;
  for (const a of answers) assert.equal(a.choices[0]?.message.content, LONG_ANSWER);
  await assertAllReleased(pd.gateway);
  assert.equal(decodeRoomsClaimed(pd), 0);
});

test('decode admission: with no wait budget the request past the window is shed 503 + Retry-After', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries', '--pd-admission-wait-secs', '0'],
    decode: { maxRunningRequests: 2, itlMs: 15, answerText: LONG_ANSWER },
  });
  setups.push(pd);
  const ok = [1, 2].map((i) => client(pd).chat.completions.create(chat(`request ${i}`)));
  await waitFor(() => decodeRoomsClaimed(pd) === 2, 'both rooms to be claimed');
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, chat('one too many'));
  assert.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After is set');
  await assertGatewayError(res, 503, 'no_available_workers');
  await Promise.all(ok);
  await assertAllReleased(pd.gateway);
  assert.equal(decodeRoomsClaimed(pd), 0);
});

test('prefill admission: the second request is sent when the first prefill ends, before its decode does', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries', '--prefill-max-inflight-requests-per-worker', '1'],
    decode: { itlMs: 20, answerText: LONG_ANSWER },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const first = await client(pd).chat.completions.create({ ...chat('first'), stream: true });
  const reader = (async () => {
    let text = '';
    for await (const c of first) text += c.choices[0]?.delta?.content ?? '';
    return text;
  })();
  const second = client(pd).chat.completions.create(chat('second'));
  await waitFor(() => generateRequests(prefill).length === 2, 'the second prefill to be sent');
  assert.equal(decode.stats().completed, 0, 'the first decode is still streaming');
  assert.equal(await reader, LONG_ANSWER);
  assert.equal((await second).choices[0]?.message.content, LONG_ANSWER);
  await assertAllReleased(pd.gateway);
  assert.equal(prefillSlotsHeld(pd), 0);
});

test('prefill admission: queue full and queue timeout are 429s, never retried', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: [
      '--prefill-max-inflight-requests-per-worker',
      '1',
      '--prefill-queue-size',
      '1',
      '--prefill-queue-timeout-secs',
      '1',
      '--retry-initial-backoff-ms',
      '1',
    ],
    // The holder's decode waits for KV its hung prefill never sends; its deferred abort (and with
    // it its load) ends when the engine gives up on the transfer.
    decode: { waitingTimeoutSecs: 2.5 },
  });
  setups.push(pd);
  const [prefill] = pd.prefills;
  assert.ok(prefill);
  // The first request's prefill hangs and holds the only slot until its client leaves.
  prefill.setFaults({ hang: true, maxFires: 1 });
  const holder = new AbortController();
  const held = fetch(`${pd.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chat('hold')),
    signal: holder.signal,
  }).catch(() => undefined);
  await waitFor(() => prefillSlotsHeld(pd) === 1, 'the slot to be held');

  const waiting = postJson(`${pd.gateway.url}/v1/chat/completions`, chat('waits'));
  await waitFor(() => pd.gateway.internals.prefillAdmission?.queued === 1, 'one waiter');
  await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, chat('no room')),
    429,
    'pd_prefill_queue_full',
  );
  await assertGatewayError(await waiting, 429, 'pd_prefill_queue_timeout');
  holder.abort();
  await held;
  const text = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(text, 'smg_worker_retries_total', {}) ?? 0, 0, 'no 429 was retried');
  assert.equal(generateRequests(prefill).length, 1, 'only the holder reached the prefill');
  await assertAllReleased(pd.gateway);
});

test('a retried attempt goes through prefill admission again', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: [
      '--prefill-max-inflight-requests-per-worker',
      '1',
      '--retry-initial-backoff-ms',
      '1',
      '--disable-circuit-breaker',
    ],
  });
  setups.push(pd);
  pd.prefills[0]?.setFaults({ errorRate: 1, grpcStatus: 14, maxFires: 1 });
  const res = await client(pd).chat.completions.create(chat('retry'));
  assert.ok(res.choices[0]?.message.content);
  const text = await scrapeMetrics(pd.gateway);
  assert.equal(
    metricValue(text, 'smg_pd_prefill_admission_wait_seconds_count', {}),
    2,
    'admitted once per attempt',
  );
  await assertAllReleased(pd.gateway);
  assert.equal(prefillSlotsHeld(pd), 0);
});

test('a decode deferring its abort keeps its room claim until the engine lets it go', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries'],
    // The decode gives up on the KV after 1 s: its first item, which ends the deferral.
    decode: { maxRunningRequests: 1, waitingTimeoutSecs: 1 },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  prefill.setFaults({ hang: true });
  const gone = new AbortController();
  const pending = fetch(`${pd.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chat('leave while the decode waits for KV')),
    signal: gone.signal,
  }).catch(() => undefined);
  await waitFor(() => decode.stats().running === 1, 'the decode to take its seat');
  gone.abort();
  await pending;
  await waitFor(() => (prefill.grpc?.aborts.length ?? 0) === 1, 'the prefill Abort');
  // The engine still runs the decode: its room stays claimed, so no other request is sent a
  // room the window does not have.
  assert.equal(decode.stats().running, 1);
  assert.equal(decodeRoomsClaimed(pd), 1, 'the claim outlives the client while the decode runs');
  await waitFor(() => (decode.grpc?.aborts.length ?? 0) === 1, 'the deferred decode Abort', {
    timeoutMs: 5000,
  });
  await assertAllReleased(pd.gateway);
  assert.equal(decodeRoomsClaimed(pd), 0);
});
