import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PolicyConfig } from '../../../src/policies/policy-config.js';
import { PrefixHashPolicy } from '../../../src/policies/prefix-hash.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { holdLoad, metricValue, openCircuitWorker, testDeps } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function setup(
  config: Partial<PolicyConfig> = {},
  n = 4,
): {
  policy: PrefixHashPolicy;
  workers: Worker[];
  branch: (b: string) => Promise<number>;
} {
  const deps = testDeps(config);
  const policy = new PrefixHashPolicy(deps.config, deps.metrics);
  const workers = Array.from({ length: n }, (_, i) => testWorker(`w${i}`));
  return {
    policy,
    workers,
    branch: (b) => metricValue(deps.metrics.prefixHashBranch, { branch: b }),
  };
}

const LONG_HEAD = 'You are a helpful assistant. '.repeat(40); // 1160 chars, past the 1024-char key

void describe('PrefixHashPolicy', () => {
  void it('keys text on its first prefixTokenCount × 4 characters', async () => {
    const { policy, workers, branch } = setup();
    const first = policy.select(
      candidateSet(workers),
      testSelectInfo({ text: `${LONG_HEAD}question one` }),
    );
    assert.ok(first);
    for (let i = 0; i < 10; i++)
      assert.equal(
        policy.select(candidateSet(workers), testSelectInfo({ text: `${LONG_HEAD}question ${i}` })),
        first,
      );
    assert.equal(await branch('ring_hit'), 11);
  });

  void it('spreads different prefixes over the workers', () => {
    const { policy, workers } = setup({ prefixTokenCount: 4 });
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++)
      seen.add(
        policy.select(candidateSet(workers), testSelectInfo({ text: `doc ${i} body` }))?.id ?? '',
      );
    assert.equal(seen.size, 4);
  });

  void it('groups requests sharing the first 4 × prefixTokenCount characters', () => {
    const { policy, workers } = setup({ prefixTokenCount: 2 });
    const groups = new Map<string, Set<string>>();
    for (let i = 0; i < 200; i++) {
      const head = `h${i % 20}`.padEnd(8, '.'); // 8 chars = 2 tokens' worth
      const id =
        policy.select(candidateSet(workers), testSelectInfo({ text: `${head}tail ${i}` }))?.id ??
        '';
      groups.set(head, (groups.get(head) ?? new Set()).add(id));
    }
    for (const [head, ids] of groups)
      assert.equal(ids.size, 1, `${head} went to ${[...ids].join(',')}`);
  });

  void it('keys tokens on the first prefixTokenCount ids, ahead of text', () => {
    const { policy, workers } = setup({ prefixTokenCount: 5 });
    const a = policy.select(
      candidateSet(workers),
      testSelectInfo({ tokens: [1, 2, 3, 4, 5, 100, 200], text: 'x' }),
    );
    const b = policy.select(
      candidateSet(workers),
      testSelectInfo({ tokens: [1, 2, 3, 4, 5, 999], text: 'something else' }),
    );
    assert.ok(a);
    assert.equal(b, a);
  });

  void it('lets a routing key override the request content', () => {
    const { policy, workers } = setup();
    const byKey = (text: string): string | undefined =>
      policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'session-9', text }))?.id;
    const first = byKey('alpha');
    for (const text of ['beta', 'gamma', LONG_HEAD]) assert.equal(byKey(text), first);
  });

  void it('sends a request with nothing to hash to the least-loaded worker', async () => {
    const { policy, workers, branch } = setup();
    holdLoad(workers[0] as Worker, 2);
    holdLoad(workers[2] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), testSelectInfo())?.id, 'w1');
    assert.equal(await branch('no_routing_key'), 1);
  });

  void it('keeps the ring target up to the overload bound and walks away past it', async () => {
    // Two workers; the target T holds L, the other 0: avg = (L+1)/2, bound = max(1.25·avg, avg+10).
    for (const [load, stays] of [
      [21, true],
      [22, false],
    ] as const) {
      const { policy, workers, branch } = setup({}, 2);
      const info = testSelectInfo({ text: 'the same prompt' });
      const target = policy.select(candidateSet(workers), info) as Worker;
      const leases = holdLoad(target, load);
      const chosen = policy.select(candidateSet(workers), info);
      assert.equal(chosen === target, stays, `load ${load}`);
      // The first selection (finding the target) was a ring hit too.
      assert.equal(await branch('ring_hit'), stays ? 2 : 1);
      assert.equal(await branch('load_balance_walk'), stays ? 0 : 1);
      for (const l of leases) l.release();
    }
  });

  void it('walks to the least-loaded acceptable worker, not just the next one', () => {
    const { policy, workers } = setup();
    const info = testSelectInfo({ text: 'hot prefix' });
    const target = policy.select(candidateSet(workers), info) as Worker;
    holdLoad(target, 40);
    const others = workers.filter((w) => w !== target);
    holdLoad(others[0] as Worker, 3);
    holdLoad(others[1] as Worker, 1);
    holdLoad(others[2] as Worker, 2);
    assert.equal(policy.select(candidateSet(workers), info), others[1]);
  });

  void it('uses the ring target anyway when every worker is over the bound', async () => {
    const { policy, workers, branch } = setup({
      prefixHashLoadFactor: 0.1,
      prefixHashBalanceAbsThreshold: -100,
    });
    const info = testSelectInfo({ text: 'p' });
    const target = policy.select(candidateSet(workers), info) as Worker;
    for (const w of workers) holdLoad(w, 5);
    assert.equal(policy.select(candidateSet(workers), info), target);
    assert.equal(await branch('load_balance_walk'), 1);
  });

  void it('treats every worker as fine when nothing is in flight', () => {
    const { policy, workers } = setup({
      prefixHashLoadFactor: 0.1,
      prefixHashBalanceAbsThreshold: -100,
    });
    const info = testSelectInfo({ text: 'p' });
    const target = policy.select(candidateSet(workers), info);
    assert.equal(policy.select(candidateSet(workers), info), target);
  });

  void it('considers a worker with an open circuit (hash policies ignore the breaker)', () => {
    const { policy } = setup();
    const only = openCircuitWorker('cb');
    assert.equal(policy.select(candidateSet([only]), testSelectInfo({ text: 'x' })), only);
  });

  void it('returns undefined with no eligible worker', async () => {
    const { policy, workers, branch } = setup({}, 2);
    for (const w of workers) w.overloaded = true;
    assert.equal(policy.select(candidateSet(workers), testSelectInfo({ text: 'x' })), undefined);
    assert.equal(await branch('no_healthy_workers'), 1);
  });
});
