// The control for the shared stores: three gateway processes with the in-process store (each
// counting only its own claims) in front of one decode whose window is 16. Each admits a full
// window, so together they post more rooms than the engine runs: the over-admission that a
// shared store removes (replicas-redis.test.ts, cluster-workers-window.test.ts).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  assertReplicasReleased,
  burstAcross,
  startReplicaFleet,
  type ReplicaFleet,
} from '../../helpers/replica-fleet.js';

const WINDOW = 16;
let fleet: ReplicaFleet | undefined;
after(async () => fleet?.close());

test('three replicas with in-process stores over-admit the decode window', async () => {
  fleet = await startReplicaFleet({ replicas: 3, window: WINDOW, flags: () => [] });
  const { maxRunning } = await burstAcross(fleet, 64);
  assert.ok(
    maxRunning > WINDOW,
    `each replica admits its own window, so the decode should see more than ${WINDOW} in flight; saw ${maxRunning}`,
  );
  await assertReplicasReleased(fleet.replicas);
});
