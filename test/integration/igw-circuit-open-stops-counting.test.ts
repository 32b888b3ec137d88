// IGW end to end: a worker whose circuit opens stops counting toward its router's weight, so
// its pool's share of traffic goes to the pool that can still answer (SMG counted dead workers).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import type { SimWorker } from '@switchyard/sim';
import { assertAllReleased, metricValue, scrapeMetrics } from '../helpers/gateway.js';
import { chat, IgwFleet, pdAnswers, startIgwGateway } from '../helpers/igw-fleet.js';

const MODEL = 'cb-model';

let gateway: Gateway;
let fleet: IgwFleet;
let regular: SimWorker;

before(async () => {
  gateway = await startIgwGateway({
    seed: 3,
    flags: [
      '--cb-failure-threshold',
      '2',
      '--cb-timeout-duration-secs',
      '600',
      '--disable-retries',
    ],
  });
  fleet = new IgwFleet(gateway);
  await fleet.add('prefill', MODEL);
  await fleet.add('decode', MODEL);
  regular = await fleet.add('regular', MODEL);
});
after(async () => fleet.close());

test('a regular worker whose circuit opens gets no more traffic, and PD takes it all', async () => {
  assert.equal(
    metricValue(await scrapeMetrics(gateway), 'smg_router_weight', {
      model: MODEL,
      router_type: 'http-regular',
    }),
    1,
  );
  regular.setFaults({ errorRate: 1, errorStatus: 500 });
  const worker = gateway.internals.registry.getByUrl(regular.url);
  assert.ok(worker);
  // Each request goes to the regular worker with probability 1/3; two failures open its circuit.
  for (let i = 0; i < 200 && worker.circuit.state !== 'open'; i++)
    await (await chat(gateway, MODEL)).arrayBuffer();
  assert.equal(worker.circuit.state, 'open');

  const text = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(text, 'smg_router_weight', { model: MODEL, router_type: 'http-regular' }),
    0,
  );
  assert.equal(metricValue(text, 'smg_router_weight', { model: MODEL, router_type: 'http-pd' }), 2);
  const before = regular.stats().requests['/v1/chat/completions'] ?? 0;
  assert.equal(await pdAnswers(fleet, gateway, MODEL, 100), 100, 'every request answered by PD');
  assert.equal(
    regular.stats().requests['/v1/chat/completions'] ?? 0,
    before,
    'the open-circuit worker got nothing',
  );
  await assertAllReleased(gateway);
});
