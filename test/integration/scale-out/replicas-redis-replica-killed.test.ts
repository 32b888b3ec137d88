// A replica that dies holding claims (SIGKILL: no give-back, no goodbye) must not wedge the
// decode window for good: its claims lapse in Redis within --admission-lease-secs, and a request
// on the surviving replica, which had to wait for them, is then admitted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_PREFIX } from '../../../src/admission/store/redis-store.js';
import { metricValue, waitFor } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';
import { RedisProbe } from '../../helpers/redis-probe.js';
import { RedisServer } from '../../helpers/redis-server.js';
import {
  assertReplicasReleased,
  startReplicaFleet,
  type ReplicaFleet,
} from '../../helpers/replica-fleet.js';

const WINDOW = 4;
const LEASE_SECS = 2;
let redis: RedisServer;
let fleet: ReplicaFleet | undefined;
let probe: RedisProbe | undefined;
before(async () => {
  redis = await RedisServer.start();
});
after(async () => {
  probe?.close();
  await fleet?.close();
  await redis.close();
});

const generate = (url: string, tokens: number): Promise<Response> =>
  postJson(`${url}/generate`, { text: 'hold', sampling_params: { max_new_tokens: tokens } });

test("a killed replica's claims lapse within the lease and the window recovers", async () => {
  fleet = await startReplicaFleet({
    replicas: 2,
    window: WINDOW,
    flags: () => ['--admission-store', redis.url, '--admission-lease-secs', String(LEASE_SECS)],
  });
  const [doomed, survivor] = fleet.replicas;
  assert.ok(doomed && survivor);
  probe = new RedisProbe(redis.url, DEFAULT_PREFIX);
  const key = `decode:${fleet.decode.url}`;

  // Fill the window through the replica about to die, with requests long enough to outlive it.
  const held = Array.from({ length: WINDOW }, () =>
    generate(doomed.url, 20_000).then(
      (res) => res.arrayBuffer(),
      () => undefined,
    ),
  );
  await waitFor(
    async () => (await probe!.total(key)) === WINDOW,
    'the window full in Redis',
    10_000,
  );
  doomed.run.child.kill('SIGKILL');
  await doomed.run.exited;
  const killedAt = Date.now();
  await Promise.all(held);

  const res = await generate(survivor.url, 8);
  await res.arrayBuffer();
  const waitedMs = Date.now() - killedAt;
  assert.equal(res.status, 200);
  const text = await (await fetch(survivor.metricsUrl)).text();
  assert.ok(
    (metricValue(text, 'smg_pd_admission_waits_total') ?? 0) >= 1,
    'the request waited: the dead replica still held the window in Redis',
  );
  // Renewals run every lease / 3, so the claims lapse between 2/3 of a lease and one lease after
  // the kill; the waiter's poll (250 ms) then finds the room.
  assert.ok(waitedMs >= 1000, `admitted after ${waitedMs} ms: the claims cannot have lapsed yet`);
  assert.ok(waitedMs < LEASE_SECS * 1000 + 4000, `admitted only after ${waitedMs} ms`);
  await assertReplicasReleased([survivor]);
  assert.equal(await probe.total(key), 0, 'the lapsed claims and the new one are all gone');
});
