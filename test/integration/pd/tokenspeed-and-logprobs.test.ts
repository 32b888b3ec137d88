// TokenSpeed pairs use the same rendezvous; SGLang input logprobs from the prefill are merged in
// front of the decode's, streamed and not.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import { assertAllReleased } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

test('a TokenSpeed pair completes through the rendezvous', async () => {
  const pd = await startPdSetup({
    prefill: { runtime: 'tokenspeed' },
    decode: { runtime: 'tokenspeed' },
  });
  setups.push(pd);
  assert.equal(pd.gateway.internals.registry.ofType('prefill')[0]?.runtime, 'tokenspeed');
  const res = await postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'tokenspeed',
    max_tokens: 3,
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  assert.equal(pd.decodes[0]?.stats().kvTransfers, 1);
  await assertAllReleased(pd.gateway);
});

type Lp = [number, number, unknown][];

test("input logprobs: prefill entries first, then the decode's, non-streamed and streamed", async () => {
  const pd = await startPdSetup();
  setups.push(pd);
  const req = {
    text: 'one two three four',
    sampling_params: { max_new_tokens: 3 },
    return_logprob: true,
  };
  // The prompt's logprobs as a colocated engine computes them: the prefill side of a pair
  // computes the same, and the decode (which received the KV) computes none.
  const regular = await startSimWorker({});
  const expected = (
    (await (await postJson(`${regular.url}/generate`, req)).json()) as {
      meta_info: { input_token_logprobs: Lp };
    }
  ).meta_info.input_token_logprobs;
  await regular.close();
  assert.ok(expected.length >= 4);
  const res = await postJson(`${pd.gateway.url}/generate`, req);
  assert.equal(res.status, 200, await res.clone().text());
  const doc = (await res.json()) as { meta_info: { input_token_logprobs: Lp } };
  const merged = doc.meta_info.input_token_logprobs;
  assert.deepEqual(merged, expected, "the prefill's input logprobs reached the client");
  const stream = await postJson(`${pd.gateway.url}/generate`, { ...req, stream: true });
  assert.equal(stream.status, 200);
  const events = parseSseData(await stream.text())
    .filter((e) => e !== '[DONE]')
    .map((e) => JSON.parse(e) as { meta_info?: { input_token_logprobs?: Lp } });
  const withLp = events.filter((e) => e.meta_info?.input_token_logprobs);
  assert.ok(withLp.length > 0);
  for (const e of withLp) assert.deepEqual(e.meta_info?.input_token_logprobs, merged);
  await assertAllReleased(pd.gateway);
});
