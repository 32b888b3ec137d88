// Prefill admission end to end: one slot per client request (batches and n>1 included) held
// until its prefill leg ends, real 429s for streaming requests, re-admission on retry, release on
// prefill error and client disconnect, a new worker draining the queue, and no slot left behind
// after a storm of faults.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { startSimWorker } from '@switchyard/sim';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
const extra: { close(): Promise<void> }[] = [];
after(async () => {
  for (const s of setups) await s.close();
  for (const w of extra) await w.close();
});

async function setup(
  limit: number,
  opts: Parameters<typeof startPdSetup>[0] = {},
): Promise<PdSetup> {
  const s = await startPdSetup({
    ...opts,
    flags: [
      '--prefill-max-inflight-requests-per-worker',
      String(limit),
      '--retry-initial-backoff-ms',
      '1',
      ...(opts.flags ?? []),
    ],
  });
  setups.push(s);
  return s;
}

const gen = (text: string | string[]) => ({ text, sampling_params: { max_new_tokens: 2 } });
const slots = (pd: PdSetup): number =>
  pd.gateway.internals.registry
    .ofType('prefill')
    .reduce((n, w) => n + (pd.gateway.internals.prefillAdmission?.inflight(w) ?? 0), 0);

test('a batch takes one slot, held until its prefill ends; the next request waits for it', async () => {
  const pd = await setup(1, { prefill: { ttftMs: 300 } });
  const batch = postJson(`${pd.gateway.url}/generate`, gen(['a', 'b', 'c']));
  await waitFor(() => slots(pd) === 1, 'batch holds a slot');
  const second = postJson(`${pd.gateway.url}/generate`, gen('d'));
  await waitFor(() => pd.gateway.internals.prefillAdmission?.queued === 1, 'second request queued');
  assert.equal(slots(pd), 1, 'three items, one slot');
  const [r1, r2] = await Promise.all([batch, second]);
  assert.equal(r1.status, 200);
  assert.equal(r2.status, 200);
  await Promise.all([r1.arrayBuffer(), r2.arrayBuffer()]);
  await assertAllReleased(pd.gateway);
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(m, 'smg_pd_prefill_admission_wait_seconds_count'), 2);
});

test('queue size 0: a streaming request gets a real 429, not a 200 with an SSE error', async () => {
  const pd = await setup(1, { prefill: { ttftMs: 300 }, flags: ['--prefill-queue-size', '0'] });
  const first = postJson(`${pd.gateway.url}/generate`, gen('a'));
  await waitFor(() => slots(pd) === 1, 'slot taken');
  const res = await postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'x',
    max_tokens: 2,
    stream: true,
  });
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
  await assertGatewayError(res, 429, 'pd_prefill_queue_full');
  await (await first).arrayBuffer();
});

test('a failed prefill releases its slot and the retry is admitted again', async () => {
  const pd = await setup(1, { prefills: 2 });
  const firstPrefill = pd.gateway.internals.registry.ofType('prefill')[0];
  const failing = pd.prefills.find((p) => p.url === firstPrefill?.url);
  failing?.setFaults({ errorRate: 1, errorStatus: 503, maxFires: 1 });
  const res = await postJson(`${pd.gateway.url}/generate`, gen('retry me'));
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  assert.equal(slots(pd), 0);
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(
    metricValue(m, 'smg_pd_prefill_admission_wait_seconds_count'),
    2,
    'two admissions: the attempt and its retry',
  );
  await assertAllReleased(pd.gateway);
});

test('a client that leaves (queued or running) releases everything', async () => {
  const pd = await setup(1, { prefill: { ttftMs: 400 } });
  const ac1 = new AbortController();
  const ac2 = new AbortController();
  const running = request(`${pd.gateway.url}/generate`, {
    method: 'POST',
    body: JSON.stringify(gen('a')),
    signal: ac1.signal,
  });
  await waitFor(() => slots(pd) === 1, 'slot taken');
  const queued = request(`${pd.gateway.url}/generate`, {
    method: 'POST',
    body: JSON.stringify(gen('b')),
    signal: ac2.signal,
  });
  await waitFor(() => pd.gateway.internals.prefillAdmission?.queued === 1, 'queued');
  ac2.abort();
  ac1.abort();
  await Promise.allSettled([running, queued]);
  await assertAllReleased(pd.gateway);
});

test('a prefill worker added while requests wait drains the queue onto it', async () => {
  const pd = await setup(1, { prefill: { ttftMs: 500 } });
  const held = postJson(`${pd.gateway.url}/generate`, gen('a'));
  await waitFor(() => slots(pd) === 1, 'slot taken');
  const waiting = postJson(`${pd.gateway.url}/generate`, gen('b'));
  await waitFor(() => pd.gateway.internals.prefillAdmission?.queued === 1, 'queued');
  const fresh = await startSimWorker({ role: 'prefill', ttftMs: 2, itlMs: 2 });
  extra.push(fresh);
  const added = await postJson(`${pd.gateway.url}/workers`, {
    url: fresh.url,
    worker_type: 'prefill',
    bootstrap_port: fresh.bootstrapPort,
  });
  assert.equal(added.status, 202);
  const res = await waiting;
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(fresh.stats().requests['/generate'], 1, 'the waiter went to the new worker');
  await (await held).arrayBuffer();
});

test('after a storm of errors and disconnects no slot, queue entry or load is left', async () => {
  const pd = await setup(1, {
    prefills: 2,
    decodes: 2,
    prefill: { ttftMs: 20, faults: { errorRate: 0.3, errorStatus: 500 } },
    decode: { itlMs: 5 },
  });
  const jobs = Array.from({ length: 30 }, async (_, i) => {
    const ac = new AbortController();
    if (i % 4 === 0) setTimeout(() => ac.abort(), 15 + i);
    try {
      const res = await request(`${pd.gateway.url}/generate`, {
        method: 'POST',
        body: JSON.stringify({ ...gen(`s${i}`), stream: i % 2 === 0 }),
        signal: ac.signal,
      });
      await res.body.text();
    } catch {
      // aborted by the test
    }
  });
  await Promise.all(jobs);
  await waitFor(
    () => slots(pd) === 0 && pd.gateway.internals.prefillAdmission?.queued === 0,
    'admission drained',
    5000,
  );
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(m, 'smg_pd_prefill_admission_queued'), 0);
  for (const w of pd.gateway.internals.registry.ofType('prefill'))
    assert.equal(metricValue(m, 'smg_pd_prefill_admission_inflight', { worker: w.key }), 0);
  await assertAllReleased(pd.gateway);
});

test('the prefill slot is free once the prefill is read, while a non-streamed decode still runs', async () => {
  // A non-streamed decode sends its head only when it is done; the prefill's body must be read
  // from its own head on, or its slot stays held for the whole decode.
  const pd = await setup(1, { prefill: { ttftMs: 50 }, decode: { itlMs: 20 } });
  let firstDone = false;
  const first = postJson(`${pd.gateway.url}/generate`, {
    text: 'a',
    sampling_params: { max_new_tokens: 100 },
  }).then(async (r) => {
    await r.arrayBuffer();
    firstDone = true;
    return r.status;
  });
  await waitFor(() => slots(pd) === 1, 'the first request holds the slot');
  await waitFor(() => slots(pd) === 0, 'the slot is released after the prefill');
  assert.equal(firstDone, false, 'released while the first decode still runs');
  const second = await postJson(`${pd.gateway.url}/generate`, gen('b'));
  assert.equal(second.status, 200);
  await second.arrayBuffer();
  assert.equal(firstDone, false, 'the second request was admitted and answered meanwhile');
  assert.equal(await first, 200);
  await assertAllReleased(pd.gateway);
});
