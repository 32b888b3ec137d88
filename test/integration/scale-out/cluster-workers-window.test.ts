// The decode window stays exact across the processes of `launch --workers 2`: the same burst that
// three independent replicas over-admit (replicas-in-process-control.test.ts) goes through one
// launch whose two processes claim rooms from the primary, and the decode never runs more than
// its window. Every claim comes back, in the processes' gauges and at the primary.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { metricValue } from '../../helpers/gateway.js';
import {
  assertReplicasReleased,
  burstAcross,
  startReplicaFleet,
  type ReplicaFleet,
} from '../../helpers/replica-fleet.js';
import { waitFor } from '../../helpers/wait-for.js';

const WINDOW = 16;
let fleet: ReplicaFleet | undefined;
after(async () => fleet?.close());

/**
 * Readiness on fresh connections, several in a row: the primary hands connections to the
 * processes in turn, so this asks each of them (startReplica asked only one).
 */
async function everyProcessReady(url: string, processes: number): Promise<boolean> {
  for (let i = 0; i < processes * 2; i++) {
    const res = await request(`${url}/readiness`, { reset: true });
    await res.body.dump();
    if (res.statusCode !== 200) return false;
  }
  return true;
}

test('launch --workers 2 keeps one decode window exact across its processes', async () => {
  fleet = await startReplicaFleet({ replicas: 1, window: WINDOW, flags: () => ['--workers', '2'] });
  const { decode, prefill, replicas } = fleet;
  const [launch] = replicas;
  assert.ok(launch);
  await waitFor(() => everyProcessReady(launch.url, 2), 'both processes ready', 15_000);
  const { codes, maxRunning } = await burstAcross(fleet, 64);
  assert.ok(
    maxRunning <= WINDOW,
    `the decode had ${maxRunning} requests in flight; its window is ${WINDOW}`,
  );
  // Admission never refuses here. On a loaded machine the simulated KV transfer can outlast the
  // decode's 1 s wait (a 500 from the decode), single process or not: that is engine timing.
  const failed = codes.filter((c) => c !== 'ok');
  assert.ok(
    failed.every((c) => c === 'decode_internal_error'),
    `failures other than the engine's own: ${failed.join(', ')}; sim stats: ` +
      JSON.stringify({ decode: decode.stats(), prefill: prefill.stats() }),
  );
  const text = await (await fetch(launch.metricsUrl)).text();
  const perProcess = ['0', '1'].map(
    (process) => metricValue(text, 'smg_cluster_process_http_requests_total', { process }) ?? 0,
  );
  assert.ok(
    perProcess.every((n) => n > 0),
    `both processes took part: ${perProcess.join(', ')}`,
  );
  await assertReplicasReleased(replicas);
  let held = '';
  await waitFor(
    async () => {
      held = (await (await fetch(launch.metricsUrl)).text())
        .split('\n')
        .filter((l) => l.startsWith('smg_cluster_admission_held_units{'))
        .join('; ');
      return held === '';
    },
    () => `the primary to hold no units; holds ${held}`,
    5000,
  );
});
