// Decode admission end to end: rooms are claimed against the decode's running window before any
// leg is sent, held until the last streamed token, released on completion, error and client
// disconnect; a full window makes requests wait (woken by releases), then shed with a retryable
// 503 whose budget is shared across retries; a worker with no known window is not gated.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

async function setup(opts: Parameters<typeof startPdSetup>[0]): Promise<PdSetup> {
  const s = await startPdSetup({
    ...opts,
    flags: ['--retry-initial-backoff-ms', '1', ...(opts?.flags ?? [])],
  });
  setups.push(s);
  return s;
}

const claimed = (pd: PdSetup, i = 0): number =>
  pd.gateway.internals.decodeAdmission?.claimed(
    pd.gateway.internals.registry.ofType('decode')[i]?.key ?? '',
  ) ?? -1;

async function openStream(pd: PdSetup, tokens: number, ac = new AbortController()) {
  const res = await request(`${pd.gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({
      model: 'sim-model',
      prompt: 'hold the room',
      max_tokens: tokens,
      stream: true,
    }),
  });
  assert.equal(res.statusCode, 200);
  res.body.on('error', () => undefined);
  return { res, ac };
}

test('the claim is held until the last streamed token and released on completion', async () => {
  const pd = await setup({ decode: { maxRunningRequests: 4, itlMs: 20 } });
  const { res } = await openStream(pd, 15);
  assert.equal(claimed(pd), 1, 'claimed while streaming');
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(
    metricValue(m, 'smg_pd_admission_claimed_rooms', { worker: pd.decodes[0]?.url ?? '' }),
    1,
  );
  await res.body.text();
  await waitFor(() => claimed(pd) === 0, 'released after the last token');
  // A batch of 3 claims 3 rooms.
  const batch = postJson(`${pd.gateway.url}/generate`, {
    text: ['a', 'b', 'c'],
    sampling_params: { max_new_tokens: 20 },
  });
  await waitFor(() => claimed(pd) === 3, 'a batch of 3 claims 3');
  await (await batch).arrayBuffer();
  await waitFor(() => claimed(pd) === 0, 'released');
  await assertAllReleased(pd.gateway);
});

test('released on client disconnect and on a failed leg', async () => {
  const pd = await setup({
    decode: { maxRunningRequests: 4, itlMs: 30 },
    flags: ['--disable-retries'],
  });
  const { ac } = await openStream(pd, 200);
  assert.equal(claimed(pd), 1);
  ac.abort();
  await waitFor(() => claimed(pd) === 0, 'released on disconnect');
  pd.prefills[0]?.setFaults({ errorRate: 1, errorStatus: 500 });
  await assertGatewayError(
    await postJson(`${pd.gateway.url}/generate`, { text: 'x' }),
    500,
    'prefill_internal_error',
  );
  await assertAllReleased(pd.gateway);
});

test('a full window: wait, admitted on release', async () => {
  const pd = await setup({ decode: { maxRunningRequests: 1, itlMs: 10 } });
  const { res } = await openStream(pd, 20);
  const second = postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'next',
    max_tokens: 2,
  });
  await waitFor(
    () =>
      (pd.gateway.internals.decodeAdmission?.waiting(
        pd.gateway.internals.registry.ofType('decode')[0]?.key ?? '',
      ) ?? 0) === 1,
    'waiting',
  );
  await res.body.text();
  const r2 = await second;
  assert.equal(r2.status, 200);
  await r2.arrayBuffer();
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(m, 'smg_pd_admission_waits_total'), 1);
  assert.equal(
    metricValue(m, 'smg_worker_overload_shed_total', { stage: 'selection' }),
    undefined,
    'not an overload shed',
  );
  await assertAllReleased(pd.gateway);
});

test('a window that stays full sheds with Retry-After; retries share one wait budget', async () => {
  const pd = await setup({
    decodes: 2,
    decode: { maxRunningRequests: 1, itlMs: 40 },
    flags: ['--pd-admission-wait-secs', '1'],
  });
  const holds = [await openStream(pd, 100), await openStream(pd, 100)];
  assert.equal(claimed(pd, 0) + claimed(pd, 1), 2);
  const res = await postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'no room',
    max_tokens: 2,
  });
  assert.equal(res.headers.get('retry-after'), '1');
  const error = await assertGatewayError(res, 503, 'no_available_workers');
  assert.match(error.message, /running window/);
  const m = await scrapeMetrics(pd.gateway);
  // Five attempts, but only the first waited: the budget was spent once, not five times.
  assert.equal(metricValue(m, 'smg_pd_admission_waits_total'), 1);
  // SMG counts a PD retry once per leg.
  for (const leg of ['prefill', 'decode'])
    assert.equal(
      metricValue(m, 'smg_worker_retries_total', { worker_type: leg, endpoint: 'completions' }),
      4,
    );
  for (const h of holds) h.ac.abort();
  await assertAllReleased(pd.gateway);
});

test('a shed is retried onto an idle pair', async () => {
  const pd = await setup({
    decodes: 2,
    decode: { maxRunningRequests: 1, itlMs: 40 },
    flags: ['--pd-admission-wait-secs', '0'],
  });
  // Fill the decode that round robin will pick first.
  const busy = await openStream(pd, 100);
  const busyKey = pd.gateway.internals.registry
    .ofType('decode')
    .find((w) => (pd.gateway.internals.decodeAdmission?.claimed(w.key) ?? 0) === 1)?.key;
  const res = await postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'find room',
    max_tokens: 2,
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.notEqual(res.headers.get('x-smg-routed-worker-id'), busyKey);
  await res.arrayBuffer();
  busy.ac.abort();
  await assertAllReleased(pd.gateway);
});

test('a decode worker with no known window is not gated', async () => {
  const pd = await setup({ decode: { itlMs: 20 }, prefillSpec: {} });
  const id = pd.gateway.internals.registry.ofType('decode')[0]?.id ?? '';
  // An operator label that is not a positive integer means "window unknown".
  await fetch(`${pd.gateway.url}/workers/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ labels: { max_running_requests: '0' } }),
  });
  const { res } = await openStream(pd, 10);
  assert.equal(claimed(pd), 0);
  await res.body.text();
});

test('a batch wider than the window completes, paced in chunks of the window', async () => {
  const pd = await setup({ decode: { maxRunningRequests: 2, itlMs: 5 } });
  const decode = pd.decodes[0];
  assert.ok(decode);
  let maxRunning = 0;
  const sampler = setInterval(() => (maxRunning = Math.max(maxRunning, decode.stats().running)), 2);
  const res = await postJson(`${pd.gateway.url}/generate`, {
    text: ['a', 'b', 'c', 'd', 'e'],
    sampling_params: { max_new_tokens: 4 },
  });
  clearInterval(sampler);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('x-smg-paced-chunks'), '3');
  const body = (await res.json()) as unknown[];
  assert.equal(body.length, 5, 'one answer per item, in order');
  assert.ok(maxRunning <= 2, `the decode ran ${maxRunning} at once; its window is 2`);
  assert.equal(decode.stats().roomsSeen.length, 5, 'a fresh room per item');
  // Chat n > window: the samples come back as one response, re-indexed.
  const chat = await postJson(`${pd.gateway.url}/v1/chat/completions`, {
    model: 'sim-model',
    messages: [{ role: 'user', content: 'x' }],
    n: 3,
    max_tokens: 2,
  });
  assert.equal(chat.status, 200, await chat.clone().text());
  const doc = (await chat.json()) as { choices: { index: number }[] };
  assert.deepEqual(
    doc.choices.map((c) => c.index),
    [0, 1, 2],
  );
  // Streaming cannot be paced: a 400 naming the window, sent before anything is dispatched.
  const streamed = await postJson(`${pd.gateway.url}/generate`, {
    text: ['a', 'b', 'c'],
    stream: true,
  });
  const error = await assertGatewayError(streamed, 400, 'invalid_body');
  assert.match(error.message, /running window \(2\)/);
  await assertAllReleased(pd.gateway);
});
