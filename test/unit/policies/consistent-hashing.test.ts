import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsistentHashingPolicy, implicitKey } from '../../../src/policies/consistent-hashing.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { metricValue, openCircuitWorker, testDeps } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function setup(
  n = 4,
  seed = 1,
): { policy: ConsistentHashingPolicy; workers: Worker[]; branch: (b: string) => Promise<number> } {
  const deps = testDeps({}, seed);
  const policy = new ConsistentHashingPolicy(deps.random, deps.metrics);
  const workers = Array.from({ length: n }, (_, i) => testWorker(`w${i}`));
  return {
    policy,
    workers,
    branch: (b) => metricValue(deps.metrics.consistentHashingBranch, { branch: b }),
  };
}

void describe('ConsistentHashingPolicy', () => {
  void it('sends a routing key to the same worker every time', async () => {
    const { policy, workers, branch } = setup();
    const first = policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'user-123' }));
    assert.ok(first);
    for (let i = 0; i < 20; i++)
      assert.equal(
        policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'user-123' })),
        first,
      );
    // The raw header works too, and lands on the same ring position.
    assert.equal(
      policy.select(
        candidateSet(workers),
        testSelectInfo({ headers: { 'x-smg-routing-key': 'user-123' } }),
      ),
      first,
    );
    assert.equal(await branch('routing_key_hit'), 22);
  });

  void it('spreads different keys over all workers', () => {
    const { policy, workers } = setup();
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++)
      seen.add(
        policy.select(candidateSet(workers), testSelectInfo({ routingKey: `k${i}` }))?.id ?? '',
      );
    assert.deepEqual([...seen].sort(), ['w0', 'w1', 'w2', 'w3']);
  });

  void it('routes x-smg-target-worker to exactly that worker, over any routing key', async () => {
    const { policy, workers, branch } = setup();
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ targetWorker: 2, routingKey: 'k' })),
      workers[2],
    );
    assert.equal(await branch('target_worker_hit'), 1);
  });

  void it('fails a target out of range, with no fallback', async () => {
    const { policy, workers, branch } = setup();
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ targetWorker: 4 })),
      undefined,
    );
    assert.equal(await branch('target_worker_miss'), 1);
  });

  void it('fails an ineligible target even though other workers are fine', async () => {
    const { policy, workers, branch } = setup();
    (workers[1] as Worker).status = 'not_ready';
    (workers[3] as Worker).overloaded = true;
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ targetWorker: 1 })),
      undefined,
    );
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ targetWorker: 3 })),
      undefined,
    );
    assert.equal(await branch('target_worker_miss'), 2);
  });

  void it('ignores the circuit breaker, as SMG', () => {
    const { policy } = setup();
    const workers = [testWorker('a'), openCircuitWorker('b')];
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ targetWorker: 1 }))?.id,
      'b',
    );
  });

  void it('walks past an ineligible ring owner and returns when it recovers', () => {
    const { policy, workers } = setup();
    const home = policy.select(
      candidateSet(workers),
      testSelectInfo({ routingKey: 'sticky' }),
    ) as Worker;
    home.status = 'not_ready';
    const away = policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'sticky' }));
    assert.ok(away && away !== home);
    home.status = 'ready';
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'sticky' })),
      home,
    );
  });

  void it('uses authorization, then x-forwarded-for, then cookie as an implicit key', async () => {
    assert.equal(
      implicitKey({ authorization: 'Bearer a', 'x-forwarded-for': '1.2.3.4', cookie: 'c=1' }),
      'Bearer a',
    );
    assert.equal(implicitKey({ 'x-forwarded-for': '1.2.3.4', cookie: 'c=1' }), '1.2.3.4');
    assert.equal(implicitKey({ cookie: 'c=1' }), 'c=1');
    assert.equal(implicitKey({}), undefined);
    const { policy, workers, branch } = setup();
    for (const headers of [
      { authorization: 'Bearer abc' },
      { 'x-forwarded-for': '10.0.0.7' },
      { cookie: 'sid=42' },
    ]) {
      const first = policy.select(candidateSet(workers), testSelectInfo({ headers }));
      for (let i = 0; i < 10; i++)
        assert.equal(policy.select(candidateSet(workers), testSelectInfo({ headers })), first);
      // The implicit key is hashed like an explicit one.
      const key = Object.values(headers)[0] as string;
      assert.equal(
        policy.select(candidateSet(workers), testSelectInfo({ routingKey: key })),
        first,
      );
    }
    assert.equal(await branch('routing_key_hit'), 36);
  });

  void it('falls back to uniform random without any key', async () => {
    const { policy, workers, branch } = setup(3, 7);
    const counts = new Map<string, number>();
    for (let i = 0; i < 6000; i++) {
      const id = policy.select(candidateSet(workers), testSelectInfo())?.id ?? 'none';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    // Binomial(6000, 1/3): sd ≈ 36.5; 1700..2300 is over 8 sd each way.
    assert.deepEqual([...counts.keys()].sort(), ['w0', 'w1', 'w2']);
    for (const [id, n] of counts) assert.ok(n > 1700 && n < 2300, `${id}: ${n}`);
    assert.equal(await branch('random_fallback'), 6000);
  });

  void it('returns undefined with no eligible worker', async () => {
    const { policy, workers, branch } = setup(2);
    for (const w of workers) w.status = 'not_ready';
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'k' })),
      undefined,
    );
    assert.equal(policy.select(candidateSet(workers), testSelectInfo()), undefined);
    assert.equal(policy.select(candidateSet([]), testSelectInfo()), undefined);
    assert.equal(await branch('no_healthy_workers'), 3);
  });

  void it('moves few keys when a worker joins the candidate set', () => {
    const { policy, workers } = setup(5);
    const four = workers.slice(0, 4);
    const keys = Array.from({ length: 2000 }, (_, i) => `user-${i}`);
    const before = keys.map((k) =>
      policy.select(candidateSet(four), testSelectInfo({ routingKey: k })),
    );
    const after = keys.map((k) =>
      policy.select(candidateSet(workers), testSelectInfo({ routingKey: k })),
    );
    const moved = keys.filter((_, i) => before[i] !== after[i]).length;
    assert.ok(moved < 0.35 * keys.length, `moved ${moved} of ${keys.length}`);
    assert.ok(keys.every((_, i) => before[i] === after[i] || after[i] === workers[4]));
  });

  void it('is deterministic across instances (no hidden randomness in ring placement)', () => {
    const a = setup(4, 1);
    const b = setup(4, 99);
    for (let i = 0; i < 50; i++) {
      const info = testSelectInfo({ routingKey: `k${i}` });
      assert.equal(
        a.policy.select(candidateSet(a.workers), info)?.id,
        b.policy.select(candidateSet(b.workers), info)?.id,
      );
    }
  });
});
