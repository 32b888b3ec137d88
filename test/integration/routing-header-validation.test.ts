// Malformed routing hints are a 400 invalid_routing_header that never reaches a worker.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '../../src/sim/index.js';
import type { Gateway } from '../../src/server/gateway.js';
import { startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  gateway = await startTestGateway(['--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

const body = { model: 'sim-model', prompt: 'x', max_tokens: 1 };

for (const [name, headers, pattern] of [
  ['a non-numeric x-smg-target-worker', { 'x-smg-target-worker': 'first' }, /x-smg-target-worker/],
  ['a negative x-smg-target-worker', { 'x-smg-target-worker': '-1' }, /x-smg-target-worker/],
  ['an over-long routing key', { 'x-smg-routing-key': 'k'.repeat(129) }, /128 bytes/],
  ['an empty routing key', { 'x-smg-routing-key': '' }, /must not be empty/],
  ['a bad routing token', { 'x-smg-routing-tokens': '1,2,x' }, /invalid token id/],
  ['too many routing tokens', { 'x-smg-routing-tokens': Array.from({ length: 513 }, () => '1').join(',') }, /more than 512/],
] as const) {
  test(`${name} is 400 invalid_routing_header`, async () => {
    const error = await assertGatewayError(await postJson(`${gateway.url}/v1/completions`, body, headers), 400, 'invalid_routing_header');
    assert.match(error.message, pattern);
  });
}

test('none of them reached the worker; a valid key does', async () => {
  assert.equal(worker.stats().requests['/v1/completions'] ?? 0, 0);
  const ok = await postJson(`${gateway.url}/v1/completions`, body, { 'x-smg-routing-key': 'k'.repeat(128), 'x-smg-target-worker': '0' });
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
  assert.equal(worker.stats().requests['/v1/completions'], 1);
});
