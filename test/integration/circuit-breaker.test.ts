// Per-worker circuit breakers: failures open the circuit and take the worker out of selection,
// a failure mid-stream counts, 429 is neutral, all circuits open is a 503 (not a 404), and the
// circuit half-opens after its timeout (injected clock) and closes on success.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { ManualClock } from '@switchyard/kit';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(
  count: number,
  flags: string[],
  clock = new ManualClock(1_000_000),
): Promise<{ fleet: SimWorker[]; gateway: Gateway; clock: ManualClock }> {
  const fleet = await startSimFleet(count, { ttftMs: 1, itlMs: 1 });
  const gateway = await startTestGateway(
    ['--disable-retries', ...flags, '--worker-urls', ...fleet.map((w) => w.url)],
    { clock },
  );
  cleanup.push(
    () => gateway.close(),
    async () => void (await Promise.all(fleet.map((w) => w.close()))),
  );
  await waitForReadyWorkers(gateway, count);
  return { fleet, gateway, clock };
}

async function send(gateway: Gateway, stream = false): Promise<Response> {
  const res = await postJson(`${gateway.url}/v1/completions`, {
    model: 'sim-model',
    prompt: 'x',
    max_tokens: 2,
    stream,
  });
  await res
    .clone()
    .arrayBuffer()
    .catch(() => undefined);
  return res;
}

test('failures open the circuit; then the worker is skipped and, alone, gives 503', async () => {
  const { fleet, gateway, clock } = await setup(1, [
    '--cb-failure-threshold',
    '2',
    '--cb-success-threshold',
    '1',
    '--cb-timeout-duration-secs',
    '30',
  ]);
  const [w] = fleet as [SimWorker];
  w.setFaults({ errorRate: 1, errorStatus: 500 });
  assert.equal((await send(gateway)).status, 500);
  assert.equal((await send(gateway)).status, 500);
  const worker = gateway.internals.registry.all()[0];
  assert.equal(worker?.circuit.state, 'open');
  const before = w.stats().requests['/v1/completions'];
  await assertGatewayError(await send(gateway), 503, 'no_available_workers');
  assert.equal(w.stats().requests['/v1/completions'], before, 'an open circuit sends nothing');
  let m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_worker_cb_state', { worker: w.url }), 1);
  assert.equal(
    metricValue(m, 'smg_worker_cb_transitions_total', {
      worker: w.url,
      from: 'closed',
      to: 'open',
    }),
    1,
  );
  // After the timeout the next check half-opens it; a success closes it.
  w.setFaults({});
  clock.advance(30_000);
  assert.equal(worker?.circuit.state, 'half_open');
  assert.equal((await send(gateway)).status, 200);
  assert.equal(worker?.circuit.state, 'closed');
  m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_worker_cb_state', { worker: w.url }), 0);
  await assertAllReleased(gateway);
});

test('a failure in the middle of a stream counts as a failure', async () => {
  const { fleet, gateway } = await setup(1, ['--cb-failure-threshold', '1']);
  (fleet[0] as SimWorker).setFaults({ dropAfterChunks: 1 });
  const res = await send(gateway, true);
  assert.equal(res.status, 200);
  assert.equal(gateway.internals.registry.all()[0]?.circuit.state, 'open');
  await assertAllReleased(gateway);
});

test('429 is neutral: it neither opens nor closes a circuit', async () => {
  const { fleet, gateway } = await setup(1, ['--cb-failure-threshold', '1']);
  (fleet[0] as SimWorker).setFaults({ errorRate: 1, errorStatus: 429 });
  for (let i = 0; i < 3; i++) assert.equal((await send(gateway)).status, 429);
  assert.equal(gateway.internals.registry.all()[0]?.circuit.state, 'closed');
  const m = await scrapeMetrics(gateway);
  assert.equal(metricValue(m, 'smg_worker_cb_outcomes_total', { outcome: 'neutral' }), 3);
});

test('traffic moves off a worker whose circuit opened', async () => {
  const { fleet, gateway } = await setup(2, [
    '--cb-failure-threshold',
    '1',
    '--policy',
    'round_robin',
  ]);
  const [bad, good] = fleet as [SimWorker, SimWorker];
  bad.setFaults({ errorRate: 1, errorStatus: 500 });
  await send(gateway);
  await send(gateway);
  const seen = new Set<string | null>();
  for (let i = 0; i < 6; i++) seen.add((await send(gateway)).headers.get('x-smg-routed-worker-id'));
  assert.deepEqual([...seen], [good.url]);
  await assertAllReleased(gateway);
});

test('--disable-circuit-breaker never opens', async () => {
  const { fleet, gateway } = await setup(1, [
    '--cb-failure-threshold',
    '1',
    '--disable-circuit-breaker',
  ]);
  (fleet[0] as SimWorker).setFaults({ errorRate: 1, errorStatus: 500 });
  for (let i = 0; i < 3; i++) assert.equal((await send(gateway)).status, 500);
  assert.equal(gateway.internals.registry.all()[0]?.circuit.state, 'closed');
});
