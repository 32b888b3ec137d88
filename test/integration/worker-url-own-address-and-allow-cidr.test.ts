// Worker URLs that would turn the gateway on itself or outside its fence: its own listen and
// metrics addresses are refused at POST /workers, and --worker-allow-cidr admits only its ranges.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { startTestGateway, waitFor } from '../helpers/gateway.js';
import { assertWorkerRefused, postJson } from '../helpers/http.js';

let sim: SimWorker;
let gateway: Gateway;

before(async () => {
  sim = await startSimWorker({ model: 'sim-model', runtime: 'sglang' });
  gateway = await startTestGateway(['--policy', 'round_robin']);
});

after(async () => {
  await gateway.close();
  await sim.close();
});

void describe("the gateway's own addresses", () => {
  test("the gateway's own listen and metrics addresses are refused", async () => {
    const port = new URL(gateway.url).port;
    const metricsPort = new URL(gateway.metricsUrl).port;
    await assertWorkerRefused(gateway.url, gateway.url, /own listen address/);
    await assertWorkerRefused(gateway.url, `http://0.0.0.0:${port}`, /own listen address/);
    await assertWorkerRefused(gateway.url, `http://localhost:${port}/v1`, /own listen address/);
    await assertWorkerRefused(
      gateway.url,
      `http://127.0.0.1:${metricsPort}`,
      /own metrics address/,
    );
    assert.equal(gateway.internals.registry.all().length, 0, 'nothing was registered');
  });
});

void describe('--worker-allow-cidr', () => {
  test('admits a worker inside the ranges and refuses one outside', async () => {
    const fenced = await startTestGateway(['--worker-allow-cidr', '127.0.0.0/8', '::1/128']);
    try {
      await assertWorkerRefused(
        fenced.url,
        'http://10.9.9.9:8000',
        /--worker-allow-cidr \(10\.9\.9\.9\)/,
      );
      const res = await postJson(`${fenced.url}/workers`, { url: sim.url });
      assert.equal(res.status, 202);
      await waitFor(
        () => fenced.internals.registry.all().some((w) => w.isHealthy),
        'allowed worker ready',
      );
    } finally {
      await fenced.close();
    }
  });
});
