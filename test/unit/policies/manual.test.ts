import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualPolicy } from '../../../src/policies/manual.js';
import type { PolicyConfig } from '../../../src/policies/policy-config.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { advanceTo, holdLoad, metricValue, testDeps } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function setup(config: Partial<PolicyConfig> = {}, n = 3, seed = 1) {
  const deps = testDeps({ evictionIntervalSecs: 0, ...config }, seed);
  const policy = new ManualPolicy(deps);
  const workers = Array.from({ length: n }, (_, i) => testWorker(`w${i}`));
  const branch = (b: string): Promise<number> =>
    metricValue(deps.metrics.manualBranch, { branch: b });
  return { policy, workers, deps, branch };
}

const withKey = (routingKey: string, leg: 'single' | 'prefill' | 'decode' = 'single') =>
  testSelectInfo({ routingKey, leg });

function tally(ids: (string | undefined)[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const id of ids) out.set(id ?? 'none', (out.get(id ?? 'none') ?? 0) + 1);
  return out;
}

void describe('ManualPolicy', () => {
  void it('pins a key to the worker it first got', async () => {
    const { policy, workers, branch } = setup();
    const first = policy.select(candidateSet(workers), withKey('user-1'));
    for (let i = 0; i < 20; i++)
      assert.equal(policy.select(candidateSet(workers), withKey('user-1')), first);
    assert.equal(await branch('vacant'), 1);
    assert.equal(await branch('occupied_hit'), 20);
  });

  void it('assigns new keys at random by default', () => {
    const { policy, workers } = setup({}, 3, 5);
    const got = tally(
      Array.from(
        { length: 3000 },
        (_, i) => policy.select(candidateSet(workers), withKey(`k${i}`))?.id,
      ),
    );
    // Binomial(3000, 1/3): sd ≈ 25.8; 800..1200 is over 7 sd each way.
    assert.equal(got.size, 3);
    for (const [id, n] of got) assert.ok(n > 800 && n < 1200, `${id}: ${n}`);
  });

  void it('routes a request without a key by the mode and remembers nothing', async () => {
    const { policy, workers, branch } = setup({}, 3, 9);
    const got = tally(
      Array.from(
        { length: 3000 },
        () => policy.select(candidateSet(workers), testSelectInfo())?.id,
      ),
    );
    for (const [id, n] of got) assert.ok(n > 800 && n < 1200, `${id}: ${n}`);
    assert.equal(await branch('no_routing_id'), 3000);
    assert.equal(policy.stickyMap.size, 0);
  });

  void it('fails over when the pinned worker is unavailable, and keeps the new one', async () => {
    const { policy, workers, branch } = setup();
    const home = policy.select(candidateSet(workers), withKey('s')) as Worker;
    home.status = 'not_ready';
    const away = policy.select(candidateSet(workers), withKey('s'));
    assert.ok(away && away !== home);
    assert.equal(await branch('occupied_miss'), 1);
    for (let i = 0; i < 5; i++)
      assert.equal(policy.select(candidateSet(workers), withKey('s')), away);
    // Candidates are tried oldest first, as SMG: the first worker takes the key back.
    home.status = 'ready';
    assert.equal(policy.select(candidateSet(workers), withKey('s')), home);
  });

  void it('keeps at most two candidate workers per key', () => {
    const { policy, workers } = setup({ assignmentMode: 'min_load' });
    const [a, b, c] = workers as [Worker, Worker, Worker];
    holdLoad(b, 1);
    holdLoad(c, 2);
    assert.equal(policy.select(candidateSet(workers), withKey('s')), a);
    a.status = 'not_ready';
    assert.equal(policy.select(candidateSet(workers), withKey('s')), b);
    b.status = 'not_ready';
    assert.equal(policy.select(candidateSet(workers), withKey('s')), c);
    assert.deepEqual(policy.stickyMap.workersOf('s'), [b.key, c.key]);
    a.status = 'ready';
    assert.equal(policy.select(candidateSet(workers), withKey('s')), c); // a was dropped from the key
  });

  void it('never moves existing keys when workers are added', () => {
    const { policy, workers } = setup({}, 5);
    const three = workers.slice(0, 3);
    const before = Array.from({ length: 200 }, (_, i) =>
      policy.select(candidateSet(three), withKey(`k${i}`)),
    );
    const after = Array.from({ length: 200 }, (_, i) =>
      policy.select(candidateSet(workers), withKey(`k${i}`)),
    );
    assert.deepEqual(after, before);
  });

  void it('min_load assigns new keys to the least-loaded worker', () => {
    const { policy, workers } = setup({ assignmentMode: 'min_load' });
    holdLoad(workers[0] as Worker, 2);
    holdLoad(workers[1] as Worker, 1);
    holdLoad(workers[2] as Worker, 3);
    assert.equal(policy.select(candidateSet(workers), withKey('new'))?.id, 'w1');
  });

  void it('delegate behaves as min_load inside the manual policy', () => {
    const { policy, workers } = setup({ assignmentMode: 'delegate' });
    holdLoad(workers[0] as Worker, 1);
    holdLoad(workers[2] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), withKey('new'))?.id, 'w1');
  });

  void it('min_group balances the number of keys per worker', async () => {
    const { policy, workers, deps } = setup({ assignmentMode: 'min_group' });
    const got = tally(
      Array.from(
        { length: 30 },
        (_, i) => policy.select(candidateSet(workers), withKey(`k${i}`))?.id,
      ),
    );
    assert.deepEqual([...got.values()], [10, 10, 10]);
    for (const w of workers)
      assert.equal(await metricValue(deps.metrics.routingKeysActive, { worker: w.key }), 10);
    assert.equal(await metricValue(deps.metrics.manualCacheEntries), 30);
  });

  void it('keeps prefill and decode keys apart', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), withKey('conv', 'prefill'));
    policy.select(candidateSet(workers), withKey('conv', 'decode'));
    policy.select(candidateSet(workers), withKey('conv'));
    assert.ok(policy.stickyMap.workersOf('prefill:conv'));
    assert.ok(policy.stickyMap.workersOf('decode:conv'));
    assert.ok(policy.stickyMap.workersOf('conv'));
    assert.equal(policy.stickyMap.size, 3);
  });

  void it('sweeps keys idle for at least maxIdleSecs', async () => {
    const { policy, workers, deps, branch } = setup({ maxIdleSecs: 100 });
    policy.select(candidateSet(workers), withKey('old')); // t=0
    advanceTo(deps.clock, 60_000);
    policy.select(candidateSet(workers), withKey('young')); // t=60 s
    advanceTo(deps.clock, 99_999);
    assert.equal(policy.stickyMap.sweep(), 0);
    advanceTo(deps.clock, 100_000); // 'old' idle exactly 100 s: gone; 'young' 40 s: kept
    assert.equal(policy.stickyMap.sweep(), 1);
    assert.equal(policy.stickyMap.workersOf('old'), undefined);
    assert.ok(policy.stickyMap.workersOf('young'));
    assert.equal(await metricValue(deps.metrics.manualCacheEntries), 1);
    policy.select(candidateSet(workers), withKey('old'));
    assert.equal(await branch('vacant'), 3);
  });

  void it('refreshes a key on use, so an active key is never swept', () => {
    const { policy, workers, deps } = setup({ maxIdleSecs: 100 });
    policy.select(candidateSet(workers), withKey('busy'));
    for (let t = 50_000; t <= 500_000; t += 50_000) {
      advanceTo(deps.clock, t);
      policy.select(candidateSet(workers), withKey('busy'));
      policy.stickyMap.sweep();
    }
    assert.ok(policy.stickyMap.workersOf('busy'));
  });

  void it('runs the sweep on its timer every evictionIntervalSecs', () => {
    const { policy, workers, deps } = setup({ maxIdleSecs: 60, evictionIntervalSecs: 120 });
    policy.select(candidateSet(workers), withKey('k'));
    deps.clock.advance(119_999);
    assert.equal(policy.stickyMap.size, 1);
    deps.clock.advance(1);
    assert.equal(policy.stickyMap.size, 0);
    policy.close();
    assert.equal(deps.clock.size, 0, 'close stops the sweep timer');
  });

  void it('unpins a removed worker so its keys re-assign', async () => {
    const { policy, workers, branch } = setup();
    const home = policy.select(candidateSet(workers), withKey('s')) as Worker;
    policy.onWorkerRemoved(home);
    const rest = workers.filter((w) => w !== home);
    const next = policy.select(candidateSet(rest), withKey('s'));
    assert.ok(next && next !== home);
    assert.equal(await branch('occupied_miss'), 1);
    assert.deepEqual(policy.stickyMap.workersOf('s'), [next.key]);
  });

  void it('returns undefined when no worker is available', async () => {
    const { policy, workers, branch } = setup();
    for (const w of workers) w.status = 'draining';
    assert.equal(policy.select(candidateSet(workers), withKey('s')), undefined);
    assert.equal(await branch('no_healthy_workers'), 1);
  });

  void it('returns the gauges to zero on close', async () => {
    const { policy, workers, deps } = setup();
    for (let i = 0; i < 5; i++) policy.select(candidateSet(workers), withKey(`k${i}`));
    policy.close();
    assert.equal(await metricValue(deps.metrics.manualCacheEntries), 0);
    for (const w of workers)
      assert.equal(await metricValue(deps.metrics.routingKeysActive, { worker: w.key }), 0);
  });
});
