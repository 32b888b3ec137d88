// IGW end to end: an endpoint the PD router cannot serve (embeddings, rerank) always goes to
// the regular pool, however heavy PD is; with no regular worker it is a 404, not a PD attempt.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import type { SimWorker } from '@switchyard/sim';
import { assertAllReleased } from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { IgwFleet, pdAnswers, startIgwGateway } from '../helpers/igw-fleet.js';

let gateway: Gateway;
let fleet: IgwFleet;
let regular: SimWorker;

before(async () => {
  gateway = await startIgwGateway({ seed: 4 });
  fleet = new IgwFleet(gateway);
  // PD weighs 8 against regular's 1.
  await fleet.addMany('prefill', 'mixed', 4);
  await fleet.addMany('decode', 'mixed', 4);
  regular = await fleet.add('regular', 'mixed');
  await fleet.add('prefill', 'pd-only');
  await fleet.add('decode', 'pd-only');
});
after(async () => fleet.close());

const BODIES = {
  '/v1/embeddings': { model: 'mixed', input: 'embed me' },
  '/v1/rerank': { model: 'mixed', query: 'q', documents: ['a', 'b'] },
  '/rerank': { model: 'mixed', query: 'q', documents: ['a', 'b'] },
} as const;

test('embeddings and rerank go to the regular worker every time', async () => {
  for (const [path, body] of Object.entries(BODIES)) {
    for (let i = 0; i < 20; i++) {
      const res = await postJson(`${gateway.url}${path}`, body);
      await res.arrayBuffer();
      // The simulator has no embeddings or rerank route; which worker answered is what counts.
      assert.equal(res.headers.get('x-smg-routed-worker-id'), regular.url, `${path} request ${i}`);
    }
  }
  for (const sim of fleet.sims.values()) {
    if (sim.role === 'regular') continue;
    for (const path of Object.keys(BODIES))
      assert.equal(sim.stats().requests[path], undefined, `${sim.role} saw ${path}`);
  }
  assert.ok((await pdAnswers(fleet, gateway, 'mixed', 50)) > 30, 'chat still goes mostly to PD');
  await assertAllReleased(gateway);
});

test('embeddings for a model served only by PD workers is 404 model_not_found', async () => {
  const res = await postJson(`${gateway.url}/v1/embeddings`, { model: 'pd-only', input: 'x' });
  const error = await assertGatewayError(res, 404, 'model_not_found');
  assert.match(error.message, /embeddings/);
  await assertAllReleased(gateway);
});
