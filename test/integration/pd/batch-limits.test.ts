// A PD request sized past the batch limits is refused at the edge, before a room is minted or a
// body serialized: 100,000 items once froze the event loop for ~40 s. Nothing reaches a worker.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_BATCH_ITEMS, MAX_N } from '../../../src/routing/request-limits.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const HUGE = 100_000;
let pd: PdSetup;

/** Inference requests the workers received (health probes run meanwhile and do not count). */
function inferenceRequests(): number {
  return [...pd.prefills, ...pd.decodes].reduce((sum, w) => {
    const r = w.stats().requests;
    return (
      sum + (r['/v1/completions'] ?? 0) + (r['/v1/chat/completions'] ?? 0) + (r['/generate'] ?? 0)
    );
  }, 0);
}

before(async () => {
  pd = await startPdSetup();
});
after(async () => pd.close());

test(`a ${HUGE}-prompt completions batch is 400 invalid_body naming the batch limit`, async () => {
  const prompt = new Array<string>(HUGE).fill('x');
  const res = await postJson(`${pd.gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt,
    max_tokens: 1,
  });
  const error = await assertGatewayError(res, 400, 'invalid_body');
  assert.match(error.message, new RegExp(`${HUGE} items, over the limit of ${MAX_BATCH_ITEMS}`));
});

test(`a ${HUGE}-item /generate text batch is 400 invalid_body naming the batch limit`, async () => {
  const res = await postJson(`${pd.gateway.url}/generate`, {
    text: new Array<string>(HUGE).fill('x'),
  });
  const error = await assertGatewayError(res, 400, 'invalid_body');
  assert.match(error.message, new RegExp(`over the limit of ${MAX_BATCH_ITEMS}`));
});

test(`chat n: ${HUGE} is 400 invalid_body naming the n limit`, async () => {
  const body = { model: 'sim-model', messages: [{ role: 'user', content: 'x' }], n: HUGE };
  const error = await assertGatewayError(
    await postJson(`${pd.gateway.url}/v1/chat/completions`, body),
    400,
    'invalid_body',
  );
  assert.match(error.message, new RegExp(`'n' must be an integer from 1 to ${MAX_N}`));
});

test('no worker received anything, and the gateway still serves a batch', async () => {
  assert.equal(inferenceRequests(), 0);
  const res = await postJson(`${pd.gateway.url}/generate`, {
    text: ['a', 'b', 'c'],
    sampling_params: { max_new_tokens: 2 },
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  assert.equal(pd.prefills[0]?.stats().roomsSeen.length, 3);
  await assertAllReleased(pd.gateway);
});
