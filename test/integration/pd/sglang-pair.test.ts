// SGLang PD end to end against the simulator: a real rendezvous, rooms per batch item, rooms
// above 2^53 arriving exactly, and the decode stream relayed to the client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseSseData } from '@switchyard/sim/testing';
import { assertAllReleased } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

let pd: PdSetup;
before(async () => {
  pd = await startPdSetup();
});
after(async () => pd.close());

test('a chat request completes through a real rendezvous', async () => {
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, {
    model: 'sim-model',
    messages: [{ role: 'user', content: 'hello pd' }],
    max_tokens: 5,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  assert.ok(body.choices[0]?.message.content);
  const [p] = pd.prefills;
  const [d] = pd.decodes;
  assert.equal(p?.stats().kvTransfersSent, 1);
  assert.equal(d?.stats().kvTransfers, 1);
  const room = p?.stats().roomsSeen.at(-1);
  assert.equal(d?.stats().roomsSeen.at(-1), room, 'both legs carried the same room');
  assert.equal(res.headers.get('x-smg-routed-worker-id'), d?.url);
  await assertAllReleased(pd.gateway);
});

test('a streamed request relays the decode stream', async () => {
  const res = await postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'stream me',
    max_tokens: 6,
    stream: true,
  });
  assert.equal(res.status, 200);
  const events = parseSseData(await res.text());
  assert.equal(events.at(-1), '[DONE]');
  assert.ok(events.length >= 7);
  await assertAllReleased(pd.gateway);
});

test('a batch gets a distinct room per item, and every room is below 2^63', async () => {
  const before = pd.prefills[0]?.stats().roomsSeen.length ?? 0;
  const res = await postJson(`${pd.gateway.url}/generate`, {
    text: ['a b c', 'd e f', 'g h i'],
    sampling_params: { max_new_tokens: 3 },
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const rooms = pd.prefills[0]?.stats().roomsSeen.slice(before) ?? [];
  assert.equal(rooms.length, 3);
  assert.equal(new Set(rooms).size, 3);
  for (const r of rooms) assert.ok(BigInt(r) < 1n << 63n);
  assert.deepEqual(pd.decodes[0]?.stats().roomsSeen.slice(-3), rooms);
});

test('rooms above 2^53 reach the engine with every digit', async () => {
  // Over 40 requests, rooms are uniform in [0, 2^63): all but ~2^-400 of runs see one above 2^53.
  for (let i = 0; i < 40; i++) {
    const res = await postJson(`${pd.gateway.url}/generate`, {
      text: `q${i}`,
      sampling_params: { max_new_tokens: 1 },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const big = (pd.prefills[0]?.stats().roomsSeen ?? []).filter((r) => BigInt(r) > 2n ** 60n);
  assert.ok(big.length > 0);
  for (const r of big)
    assert.ok(pd.decodes[0]?.stats().roomsSeen.includes(r), `decode saw ${r} exactly`);
  // Through a JS double, every integer above 2^60 becomes a multiple of 256. Exact uniform rooms
  // are multiples of 256 with probability 1/256 each, so not all of them can be.
  assert.ok(
    big.some((r) => BigInt(r) % 256n !== 0n),
    `rooms look rounded: ${big.join(', ')}`,
  );
  await assertAllReleased(pd.gateway);
});

test('/readiness in PD mode needs a ready prefill and a ready decode', async () => {
  const ready = await fetch(`${pd.gateway.url}/readiness`);
  assert.equal(ready.status, 200);
  const decodeOnly = await startPdSetup({ prefills: 0 });
  try {
    const r = await fetch(`${decodeOnly.gateway.url}/readiness`);
    assert.equal(r.status, 503);
    const res = await postJson(`${decodeOnly.gateway.url}/v1/completions`, {
      model: 'sim-model',
      prompt: 'x',
      max_tokens: 1,
    });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('x-smg-error-code'), 'server_selection_failed');
    await res.arrayBuffer();
  } finally {
    await decodeOnly.close();
  }
});
