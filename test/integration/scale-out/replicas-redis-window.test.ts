// Three gateway processes sharing one Redis admission store in front of one decode whose window
// is 16: a 64-request burst spread over them never puts more than 16 on the decode, nothing
// fails, and every claim is back in Redis at the end. replicas-in-process-control.test.ts is the
// same burst without the shared store, over-admitting.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_PREFIX } from '../../../src/admission/store/redis-store.js';
import { metricValue } from '../../helpers/gateway.js';
import { RedisProbe } from '../../helpers/redis-probe.js';
import { RedisServer } from '../../helpers/redis-server.js';
import {
  assertReplicasReleased,
  burstAcross,
  startReplicaFleet,
  type ReplicaFleet,
} from '../../helpers/replica-fleet.js';

const WINDOW = 16;
let redis: RedisServer;
let fleet: ReplicaFleet | undefined;
before(async () => {
  redis = await RedisServer.start();
});
after(async () => {
  await fleet?.close();
  await redis.close();
});

test('three replicas on one Redis store keep the decode window exact', async () => {
  fleet = await startReplicaFleet({
    replicas: 3,
    window: WINDOW,
    flags: () => ['--admission-store', redis.url],
  });
  for (const r of fleet.replicas) {
    const text = await (await fetch(r.metricsUrl)).text();
    assert.equal(metricValue(text, 'smg_admission_store_up', { store: 'redis' }), 1);
  }
  const probe = new RedisProbe(redis.url, DEFAULT_PREFIX);
  const key = `decode:${fleet.decode.url}`;
  let maxInRedis = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      maxInRedis = Math.max(maxInRedis, await probe.total(key));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const { codes, maxRunning } = await burstAcross(fleet, 64).finally(() => (sampling = false));
  await sampler;
  assert.deepEqual(
    codes.filter((c) => c !== 'ok'),
    [],
    'every request of the burst succeeds',
  );
  assert.ok(
    maxRunning <= WINDOW,
    `the decode had ${maxRunning} in flight; its window is ${WINDOW}`,
  );
  assert.equal(fleet.prefill.stats().bootstrapTimeouts, 0, 'no prefill room expired');
  await assertReplicasReleased(fleet.replicas);
  try {
    assert.ok(
      maxInRedis > 0 && maxInRedis <= WINDOW,
      `Redis counted the claims under ${key} (max ${maxInRedis})`,
    );
    assert.equal(await probe.total(key), 0, 'no claim left in Redis');
  } finally {
    probe.close();
  }
});
