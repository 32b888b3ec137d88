// IGW end to end: a request with a routing key (x-smg-routing-key) keeps choosing the same pool
// while the pool sizes are unchanged, so a conversation does not bounce between regular and PD
// workers and lose its prefix cache.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import type { SimRole } from '@switchyard/sim';
import { assertAllReleased } from '../helpers/gateway.js';
import { chat, IgwFleet, startIgwGateway } from '../helpers/igw-fleet.js';

const MODEL = 'sticky-model';

let gateway: Gateway;
let fleet: IgwFleet;

before(async () => {
  gateway = await startIgwGateway({ seed: 2 });
  fleet = new IgwFleet(gateway);
  await fleet.addMany('prefill', MODEL, 2);
  await fleet.addMany('decode', MODEL, 2);
  await fleet.addMany('regular', MODEL, 2);
});
after(async () => fleet.close());

async function roleFor(key: string): Promise<SimRole | undefined> {
  const res = await chat(gateway, MODEL, { 'x-smg-routing-key': key });
  await res.arrayBuffer();
  assert.equal(res.status, 200);
  return fleet.roleOf(res);
}

test('each routing key stays on one pool across its requests', async () => {
  const pools = new Map<string, SimRole | undefined>();
  for (let round = 0; round < 3; round++) {
    for (let k = 0; k < 16; k++) {
      const key = `conversation-${k}`;
      const role = await roleFor(key);
      // Keyless traffic in between must not move keyed conversations.
      await (await chat(gateway, MODEL)).arrayBuffer();
      if (round === 0) pools.set(key, role);
      else assert.equal(role, pools.get(key), `${key} moved pools in round ${round}`);
    }
  }
  const roles = new Set(pools.values());
  assert.deepEqual([...roles].sort(), ['decode', 'regular'], 'keys still spread over both pools');
  await assertAllReleased(gateway);
});
