// `--health-success-threshold 0` and `--health-failure-threshold 0` are accepted as in SMG and
// act as 1: probes driven through the gateway's own health settings keep a healthy worker ready,
// and a failing one leaves rotation on its first failure and comes back on its first success.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimWorker } from '@switchyard/sim';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

test('health thresholds of 0 act as 1 through the gateway health settings', async () => {
  const worker = await startSimWorker({ model: 'sim-model' });
  cleanup.push(() => worker.close());
  // The periodic interval is long so only the probes this test drives count.
  const gateway = await startTestGateway([
    '--health-check-interval-secs',
    '3600',
    '--health-check-timeout-secs',
    '1',
    '--health-success-threshold',
    '0',
    '--health-failure-threshold',
    '0',
    '--worker-urls',
    worker.url,
  ]);
  cleanup.push(() => gateway.close());
  await waitForReadyWorkers(gateway, 1);
  const [w] = gateway.internals.registry.all();
  assert.ok(w);

  for (let i = 0; i < 3; i++) await gateway.internals.health.probeOnce(w);
  assert.equal(w.status, 'ready', 'a healthy worker stays ready');

  worker.setFaults({ healthStatus: 503 });
  await gateway.internals.health.probeOnce(w);
  assert.equal(w.status, 'not_ready', 'one failure takes it out of rotation');
  await gateway.internals.health.probeOnce(w);
  assert.equal(w.status, 'not_ready', 'a failure does not bring it back');

  worker.setFaults({});
  await gateway.internals.health.probeOnce(w);
  assert.equal(w.status, 'ready', 'one success brings it back');
  await assertAllReleased(gateway);
});
