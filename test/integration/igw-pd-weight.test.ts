// IGW end to end: the PD weight needs both roles, and `--pd-weight-mode` decides how an
// unbalanced PD pool weighs: 4 prefill + 1 decode is 2 paired (default) and 5 summed (SMG).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, metricValue, scrapeMetrics } from '../helpers/gateway.js';
import { assertGatewayError } from '../helpers/http.js';
import { assertShare } from '../helpers/share.js';
import { chat, IgwFleet, pdAnswers, startIgwGateway } from '../helpers/igw-fleet.js';

const N = 200;

async function weight(
  gateway: Gateway,
  model: string,
  routerType: string,
): Promise<number | undefined> {
  return metricValue(await scrapeMetrics(gateway), 'smg_router_weight', {
    model,
    router_type: routerType,
  });
}

for (const [mode, pdWeight] of [
  ['paired', 2],
  ['sum', 5],
] as const) {
  describe(`--pd-weight-mode ${mode}`, () => {
    let gateway: Gateway;
    let fleet: IgwFleet;
    before(async () => {
      gateway = await startIgwGateway({ mode, seed: 5 });
      fleet = new IgwFleet(gateway);
      await fleet.addMany('prefill', 'unbalanced', 4);
      await fleet.add('decode', 'unbalanced');
      await fleet.addMany('regular', 'unbalanced', 3);
    });
    after(async () => fleet.close());

    test(`weighs 4 prefill + 1 decode as ${pdWeight} and splits by it`, async () => {
      assert.equal(await weight(gateway, 'unbalanced', 'http-pd'), pdWeight);
      assert.equal(await weight(gateway, 'unbalanced', 'http-regular'), 3);
      assertShare(
        await pdAnswers(fleet, gateway, 'unbalanced', N),
        N,
        pdWeight / (pdWeight + 3),
        'PD share',
      );
      await assertAllReleased(gateway);
    });
  });
}

describe('PD weight needs a prefill and a decode worker', () => {
  let gateway: Gateway;
  let fleet: IgwFleet;
  before(async () => {
    gateway = await startIgwGateway();
    fleet = new IgwFleet(gateway);
    await fleet.add('prefill', 'lone');
    await fleet.addMany('regular', 'lone', 2);
    await fleet.add('prefill', 'prefill-only');
  });
  after(async () => fleet.close());

  test('a prefill worker alone takes no traffic', async () => {
    assert.equal(await pdAnswers(fleet, gateway, 'lone', N), 0);
    assert.equal(await weight(gateway, 'lone', 'http-pd'), 0);
    const [prefill] = [...fleet.sims.values()].filter((s) => s.role === 'prefill');
    assert.equal(prefill?.stats().requests['/v1/chat/completions'] ?? 0, 0);
    await assertAllReleased(gateway);
  });

  test('a model with only a prefill worker answers 503 no_available_workers', async () => {
    await assertGatewayError(await chat(gateway, 'prefill-only'), 503, 'no_available_workers');
  });
});
