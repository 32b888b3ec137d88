// PD over gRPC with the bootstrap rendezvous (acceptance B1, B2, B8): SGLang and TokenSpeed pairs
// of simulated engines behind the gateway, driven by the official openai client. Both legs get
// the same engine request and the same rendezvous (SGLang: an int32 room; TokenSpeed: a 63-bit
// room carried exactly); the client gets the decode's output; a finished prefill is marked
// completed (no Abort); a client that leaves aborts the prefill at once and the decode only after
// its first item; a retry re-selects the pair with a fresh room and request id. Every test ends
// with every lease back to zero.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { waitForStats } from '@switchyard/sim/testing';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { generateRequests } from '../../helpers/grpc.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import type { PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

type Req = Record<string, unknown>;
const DECODE_ANSWER = 'The decode answers in full';

function clientOf(pd: PdSetup): OpenAI {
  return new OpenAI({ apiKey: 'unused', baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });
}

const only = <T>(xs: readonly T[], what: string): T => {
  assert.equal(xs.length, 1, `${what}: expected one, got ${xs.length}`);
  return xs[0] as T;
};

test('SGLang: both legs get one int32 room and the prefill bootstrap; the client gets the decode', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries'],
    decode: { answerText: DECODE_ANSWER },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const client = clientOf(pd);

  const stream = await client.chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: 'Hello' }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, DECODE_ANSWER, "the client gets the decode's output");

  const p = only(generateRequests(prefill), 'prefill requests');
  const d = only(generateRequests(decode), 'decode requests');
  assert.equal(p.request_id, d.request_id, 'one engine request id on both legs');
  assert.deepEqual(p.disaggregated_params, d.disaggregated_params, 'identical rendezvous');
  const params = d.disaggregated_params as Req;
  assert.equal(params.bootstrap_host, '127.0.0.1');
  assert.equal(params.bootstrap_port, prefill.bootstrapPort);
  const room = params.bootstrap_room as number;
  assert.ok(Number.isInteger(room) && room >= 0 && room < 2 ** 31 - 1, `room ${room}`);
  assert.deepEqual((p.tokenized as Req).input_ids, (d.tokenized as Req).input_ids);
  await waitForStats(decode, (s) => s.kvTransfers === 1 && s.running === 0, 3000);

  // A second request, not streamed: a fresh room.
  const whole = await client.chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: 'Again' }],
  });
  assert.equal(whole.choices[0]?.message.content, DECODE_ANSWER);
  const rooms = generateRequests(decode).map((r) => (r.disaggregated_params as Req).bootstrap_room);
  assert.equal(rooms.length, 2);
  assert.notEqual(rooms[0], rooms[1], 'a fresh room per request');

  // Both prefills finished: each was marked completed, so neither leg was sent an Abort.
  await assertAllReleased(pd.gateway);
  assert.deepEqual(prefill.grpc?.aborts, []);
  assert.deepEqual(decode.grpc?.aborts, []);
  assert.equal(prefill.stats().roomsOpen, 0);
});

test('TokenSpeed: one 63-bit room reaches both legs exactly, above 2^53', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'tokenspeed',
    flags: ['--disable-retries'],
    decode: { answerText: DECODE_ANSWER },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const client = clientOf(pd);
  for (let i = 0; i < 3; i++) {
    const res = await client.completions.create({ model: 'qwen3', prompt: `Count ${i}` });
    assert.equal(res.choices[0]?.text, DECODE_ANSWER);
  }
  const ps = generateRequests(prefill);
  const ds = generateRequests(decode);
  assert.equal(ds.length, 3);
  const rooms = ds.map((d, i) => {
    const info = d.kv_bootstrap_info as Req;
    assert.deepEqual(ps[i]?.kv_bootstrap_info, info, 'identical kv_bootstrap_info');
    assert.equal(info.bootstrap_port, prefill.bootstrapPort);
    return BigInt(info.bootstrap_room as string);
  });
  for (const r of rooms) assert.ok(r >= 0n && r < 2n ** 63n - 1n, String(r));
  // Uniform over 63 bits, a room at or below 2^53 has odds of 1 in 1024 per draw.
  assert.ok(
    rooms.some((r) => r > 2n ** 53n),
    `no room above 2^53: ${rooms.join(', ')}`,
  );
  // The simulator pairs legs by the room's exact digits: every handoff happened.
  await waitForStats(decode, (s) => s.kvTransfers === 3 && s.running === 0, 3000);
  await assertAllReleased(pd.gateway);
  assert.deepEqual(prefill.grpc?.aborts, []);
});

test('a client that leaves before the first decode token: prefill aborted at once, decode after its first item', async () => {
  // The decode runs one sequence at a time and the gateway does not gate it, so a second request's
  // decode waits inside the engine while its prefill waits for the rendezvous.
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries', '--disable-pd-decode-admission'],
    decode: {
      maxRunningRequests: 1,
      itlMs: 20,
      answerText: Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '),
      waitingTimeoutSecs: 0.5,
    },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const client = clientOf(pd);
  const first = client.chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: 'occupy the decode' }],
  });
  await waitFor(() => decode.stats().running === 1, 'the first decode to run');

  const gone = new AbortController();
  const second = client.chat.completions
    .create(
      { model: 'qwen3', messages: [{ role: 'user', content: 'leave early' }], stream: true },
      { signal: gone.signal },
    )
    .then(async (s) => {
      for await (const chunk of s) void chunk;
    })
    .catch(() => undefined);
  await waitFor(() => generateRequests(decode).length === 2, 'the second pair to be sent');
  const rid = generateRequests(decode)[1]?.request_id;
  gone.abort();
  await second;
  await waitFor(
    () => prefill.grpc?.aborts.some((a) => a.requestIds.includes(String(rid))) === true,
    'the prefill Abort',
    { timeoutMs: 1000 },
  );
  // The decode has sent nothing yet (it waits behind the first request): its abort waits.
  assert.equal(decode.grpc?.aborts.length, 0, 'no decode Abort before its first item');
  await first;
  // Admitted now, the decode finds its room gone and fails: that is its first item, and the
  // deferred Abort follows it.
  await waitFor(
    () => decode.grpc?.aborts.some((a) => a.requestIds.includes(String(rid))) === true,
    'the decode Abort after its first item',
    { timeoutMs: 5000 },
  );
  await assertAllReleased(pd.gateway);
});

test('a retry re-selects the pair with a fresh room and a new request id', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    prefills: 2,
    flags: ['--retry-initial-backoff-ms', '1'],
    decode: { answerText: DECODE_ANSWER },
  });
  setups.push(pd);
  const decode = pd.decodes[0];
  assert.ok(decode);
  // Round robin on the prefill leg starts with the first registered prefill.
  const firstUrl = pd.gateway.internals.registry.ofType('prefill')[0]?.url;
  const failing = pd.prefills.find((p) => p.url === firstUrl);
  assert.ok(failing);
  failing.setFaults({ errorRate: 1, grpcStatus: 14 });
  const res = await clientOf(pd).chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: 'retry me' }],
  });
  assert.equal(res.choices[0]?.message.content, DECODE_ANSWER);
  const ds = generateRequests(decode);
  assert.equal(ds.length, 2, 'one decode leg per attempt');
  const [a, b] = ds;
  assert.notEqual(a?.request_id, b?.request_id, 'a new request id per attempt');
  assert.match(String(b?.request_id), /-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/, 'rid-<uuidv7>');
  assert.notEqual(
    (a?.disaggregated_params as Req).bootstrap_room,
    (b?.disaggregated_params as Req).bootstrap_room,
    'a fresh room per attempt',
  );
  // The first attempt's decode was retired at once when its prefill was refused.
  await waitFor(
    () => decode.grpc?.aborts.some((x) => x.requestIds.includes(String(a?.request_id))) === true,
    'the retired decode Abort',
    { timeoutMs: 1000 },
  );
  await assertAllReleased(pd.gateway);
});

test('n > 1: one dispatch per sample, each with its own room, merged into one answer', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: ['--disable-retries', '--prefill-max-inflight-requests-per-worker', '1'],
    decode: { answerText: DECODE_ANSWER, maxRunningRequests: 4 },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const client = clientOf(pd);
  const stream = await client.chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: 'Two answers' }],
    n: 3,
    stream: true,
  });
  const texts = ['', '', ''];
  let finished = 0;
  for await (const chunk of stream) {
    for (const c of chunk.choices) {
      texts[c.index] += c.delta?.content ?? '';
      if (c.finish_reason !== null) finished++;
    }
  }
  assert.deepEqual(texts, [DECODE_ANSWER, DECODE_ANSWER, DECODE_ANSWER]);
  assert.equal(finished, 3, 'one finish per choice');

  const ps = generateRequests(prefill);
  const ds = generateRequests(decode);
  assert.equal(ps.length, 3, 'one prefill dispatch per sample');
  assert.equal(ds.length, 3, 'one decode dispatch per sample');
  for (const r of [...ps, ...ds]) assert.equal((r.sampling_params as Req).n, 1);
  const roomOf = (r: Req) => (r.disaggregated_params as Req).bootstrap_room;
  assert.equal(new Set(ds.map(roomOf)).size, 3, 'a room per sample');
  assert.equal(new Set(ds.map((r) => r.request_id)).size, 3, 'a request id per sample');
  for (const d of ds) {
    const p = ps.find((x) => x.request_id === d.request_id);
    assert.deepEqual(p?.disaggregated_params, d.disaggregated_params, 'each pair shares its room');
  }
  await waitForStats(decode, (s) => s.kvTransfers === 3 && s.running === 0, 3000);

  // Not streamed: the same split, the answer collected.
  const whole = await client.chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: 'Two whole answers' }],
    n: 2,
  });
  assert.deepEqual(
    whole.choices.map((c) => [c.index, c.message.content]),
    [
      [0, DECODE_ANSWER],
      [1, DECODE_ANSWER],
    ],
  );
  await assertAllReleased(pd.gateway);
  assert.deepEqual(prefill.grpc?.aborts, []);
  assert.deepEqual(decode.grpc?.aborts, []);
});

test("the client's rid names the dispatch; a prompt the tokenizer refuses never queues", async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: [
      '--disable-retries',
      '--prefill-max-inflight-requests-per-worker',
      '1',
      '--prefill-queue-size',
      '0',
    ],
    // The holder's decode waits for KV its hung prefill never sends, until this deadline.
    decode: { answerText: DECODE_ANSWER, waitingTimeoutSecs: 1 },
  });
  setups.push(pd);
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  const res = await fetch(`${pd.gateway.url}/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3', text: 'Hi', rid: 'client-rid', stream: false }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const [d] = generateRequests(decode);
  assert.match(String(d?.request_id), /^client-rid-[0-9a-f-]{36}$/, 'rid-<uuidv7> in PD');

  // The only prefill slot is taken and nobody may queue: a token id outside the vocabulary is
  // still answered 400 from the tokenizer, not 429 from the queue.
  prefill.setFaults({ hang: true, maxFires: 1 });
  const holder = new AbortController();
  const held = fetch(`${pd.gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3', prompt: 'hold' }),
    signal: holder.signal,
  }).catch(() => undefined);
  await waitFor(() => generateRequests(prefill).length === 2, 'the holder to reach the prefill');
  const bad = await fetch(`${pd.gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3', prompt: [1, 2, 999_999_999] }),
  });
  assert.equal(bad.status, 400, await bad.clone().text());
  assert.equal(bad.headers.get('x-smg-error-code'), 'invalid_request_parameters');
  holder.abort();
  await held;
  await waitFor(() => decode.stats().running === 0, 'the holder decode to end', {
    timeoutMs: 5000,
  });
});
