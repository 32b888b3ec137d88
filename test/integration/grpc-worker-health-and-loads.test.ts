// A gRPC worker's periodic health is its engine's HealthCheck RPC (healthy = the reply's
// `healthy`, an RPC error is a failure) feeding the same threshold state machine as HTTP probes;
// its loads come from GetLoads into the same snapshot HTTP load reports feed, and its decode
// window falls back to the reported max_running_requests. UNIMPLEMENTED means "not reporting".
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { windowOf } from '../../src/admission/decode-window.js';
import { EngineCallError } from '../../src/engine/types.js';
import type { Gateway } from '../../src/server/gateway.js';
import type { Worker } from '../../src/workers/worker.js';
import { metricValue, scrapeMetrics, startTestGateway, waitFor } from '../helpers/gateway.js';
import { engineLoad, fakeEngine, FakeConnector, GRPC_STATUS } from '../helpers/fake-engine.js';
import { postJson } from '../helpers/http.js';

const connector = new FakeConnector();
let gateway: Gateway;

before(async () => {
  gateway = await startTestGateway(
    [
      '--health-check-interval-secs',
      '3600',
      '--load-monitor-interval',
      '3600',
      '--health-failure-threshold',
      '2',
      '--health-success-threshold',
      '1',
    ],
    { grpc: connector },
  );
});

after(async () => {
  await gateway.close();
});

async function register(url: string, body: Record<string, unknown> = {}): Promise<Worker> {
  const res = await postJson(`${gateway.url}/workers`, { url, ...body });
  assert.equal(res.status, 202);
  const { worker_id: id } = (await res.json()) as { worker_id: string };
  await waitFor(() => gateway.internals.registry.get(id)?.status === 'ready', `${url} ready`);
  const worker = gateway.internals.registry.get(id);
  assert.ok(worker);
  return worker;
}

test('HealthCheck results and errors drive ready -> not_ready -> ready', async () => {
  const engine = connector.add('grpc://127.0.0.1:50061', fakeEngine('sglang'));
  const worker = await register('grpc://127.0.0.1:50061');
  const probe = (): Promise<void> => gateway.internals.health.probeOnce(worker);

  engine.health = { healthy: false, message: 'Server is shutting down' };
  await probe();
  assert.equal(worker.status, 'ready', 'one failure is under the threshold of 2');
  engine.health = new EngineCallError(GRPC_STATUS.UNAVAILABLE, 'connection refused', true);
  await probe();
  assert.equal(worker.status, 'not_ready', 'an RPC error counts as a failure');
  engine.health = { healthy: true, message: '' };
  await probe();
  assert.equal(worker.status, 'ready');
  assert.equal(engine.calls.health, 3);

  const text = await scrapeMetrics(gateway);
  assert.equal(
    metricValue(text, 'smg_worker_health_checks_total', {
      worker_type: 'regular',
      result: 'failure',
    }),
    2,
  );
});

test('GetLoads feeds the load snapshot and, without a window label, the decode window', async () => {
  const engine = connector.add(
    'grpc://127.0.0.1:50062',
    fakeEngine('vllm', {
      loads: [
        engineLoad({ dpRank: 0, numRunningReqs: 3, numWaitingReqs: 2, maxRunningRequests: 48 }),
        engineLoad({ dpRank: 1, numRunningReqs: 1, tokenUsage: 0.5, maxRunningRequests: 48 }),
      ],
    }),
  );
  const worker = await register('grpc://127.0.0.1:50062', { worker_type: 'decode' });
  assert.equal(windowOf(worker), undefined, 'no window before the first report');
  await gateway.internals.loadMonitor?.pollAll();
  const ranks = worker.loadSnapshot?.ranks;
  assert.ok(ranks);
  assert.deepEqual(
    ranks.map((r) => [r.dpRank, r.runningReqs, r.waitingReqs, r.tokenUsage, r.maxRunningRequests]),
    [
      [0, 3, 2, 0, 48],
      [1, 1, 0, 0.5, 48],
    ],
  );
  assert.equal(windowOf(worker), 96, 'max_running_requests summed over the ranks');
  assert.ok(engine.calls.loads >= 1);

  connector.add('grpc://127.0.0.1:50063', fakeEngine('vllm', { loads: engine.loads }));
  const labelled = await register('grpc://127.0.0.1:50063', {
    worker_type: 'decode',
    labels: { max_num_seqs: '16' },
  });
  assert.equal(windowOf(labelled), 16, 'a max_num_seqs label wins over the report');
});

test('a runtime without GetLoads (UNIMPLEMENTED) is not reporting and is not asked again', async () => {
  const engine = connector.add(
    'grpc://127.0.0.1:50064',
    fakeEngine('tokenspeed', {
      loads: new EngineCallError(GRPC_STATUS.UNIMPLEMENTED, 'GetLoads', true),
    }),
  );
  const worker = await register('grpc://127.0.0.1:50064');
  await gateway.internals.loadMonitor?.pollAll();
  const asked = engine.calls.loads;
  assert.ok(asked >= 1);
  await gateway.internals.loadMonitor?.pollAll();
  assert.equal(engine.calls.loads, asked);
  assert.equal(worker.loadSnapshot, undefined);
});
