import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CacheAwarePolicy } from '../../../src/policies/cache-aware.js';
import type { PolicyConfig } from '../../../src/policies/policy-config.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { advanceTo, holdLoad, metricValue, snapshot, testDeps } from './policy-fixtures.js';
import { candidateSet } from '../../../src/workers/candidate-set.js';

function setup(config: Partial<PolicyConfig> = {}, n = 4) {
  // No eviction timer unless a test asks for one.
  const deps = testDeps({ evictionIntervalSecs: 0, ...config });
  const policy = new CacheAwarePolicy('m', deps);
  const workers = Array.from({ length: n }, (_, i) => testWorker(`w${i}`));
  return { policy, workers, deps };
}

const SYSTEM = 'You are a careful assistant. Answer in one paragraph. '.repeat(4);
const ask = (text: string) => testSelectInfo({ text });
const tenants = (policy: CacheAwarePolicy, text: string): string[] =>
  [...(policy.stringTree.match(text).tenants?.keys() ?? [])].map((k) => new URL(k).hostname).sort();

void describe('CacheAwarePolicy', () => {
  void it('keeps a shared prefix on the worker that has it, although another is idler', () => {
    const { policy, workers } = setup();
    const first = policy.select(candidateSet(workers), ask(`${SYSTEM}Q: what is a radix tree?`));
    assert.equal(first?.id, 'w0'); // a miss on an idle fleet: min-load, lowest index
    holdLoad(first, 3);
    for (let i = 0; i < 5; i++)
      assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}Q: follow-up ${i}`)), first);
  });

  void it('sends a miss to the min-load worker, keyed by (load, processed, index)', () => {
    const { policy, workers } = setup();
    holdLoad(workers[0] as Worker, 1);
    for (const l of holdLoad(workers[1] as Worker, 4)) l.release(); // idle, but has processed 4
    assert.equal(policy.select(candidateSet(workers), ask('unrelated prompt'))?.id, 'w2');
  });

  void it('requires the match rate to be strictly above the threshold', () => {
    const { policy, workers } = setup({ cacheThreshold: 0.3 });
    assert.equal(policy.select(candidateSet(workers), ask('abcxxxxxxx'))?.id, 'w0');
    holdLoad(workers[0] as Worker, 1);
    // 3 of 10 matched = 0.3: not above, so a miss → min-load.
    assert.equal(policy.select(candidateSet(workers), ask('abcyyyyyyy'))?.id, 'w1');
    // 4 of 10 = 0.4: a hit on w0's branch.
    assert.equal(policy.select(candidateSet(workers), ask('abcxzzzzzz'))?.id, 'w0');
  });

  void it('spills to the min-load worker when the cached one is over both gates, which replicates the prefix', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    const leases = holdLoad(workers[0] as Worker, 100); // avg 25: 100 > 37.5 and 100 > 89
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}second`))?.id, 'w1');
    assert.deepEqual(tenants(policy, SYSTEM), ['w0', 'w1']);
    for (const l of leases) l.release();
  });

  void it('does not spill when only the relative gate is exceeded (abs 64 by default)', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    holdLoad(workers[0] as Worker, 70); // avg 17.5: 70 > 26.25 but not > 81.5
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}second`))?.id, 'w0');
  });

  void it('compares the relative gate strictly', () => {
    const { policy, workers } = setup({ balanceAbsThreshold: -1000, balanceRelThreshold: 1.5 }, 2);
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    holdLoad(workers[0] as Worker, 3);
    holdLoad(workers[1] as Worker, 1); // avg 2: 3 > 3 is false → stay
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}again`))?.id, 'w0');
    holdLoad(workers[0] as Worker, 1); // 4 vs avg 2.5: 4 > 3.75 → spill
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}again`))?.id, 'w1');
  });

  void it('picks the least-loaded available tenant of the matched prefix', () => {
    const { policy, workers } = setup();
    policy.stringTree.insert(`${SYSTEM}x`, (workers[0] as Worker).key);
    policy.stringTree.insert(`${SYSTEM}y`, (workers[2] as Worker).key);
    holdLoad(workers[0] as Worker, 2);
    holdLoad(workers[2] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}z`))?.id, 'w2');
  });

  void it('takes the first available worker and inserts nothing when no matched tenant is available', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    (workers[0] as Worker).status = 'not_ready';
    holdLoad(workers[1] as Worker, 1); // so min-load (w2) differs from first available (w1)
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}second`))?.id, 'w1');
    assert.deepEqual(tenants(policy, SYSTEM), ['w0']);
    assert.equal(policy.stringTree.tenantChars((workers[1] as Worker).key), 0);
  });

  void it('abandons affinity under KV pressure but still records the prompt', () => {
    const { policy, workers } = setup({ overloadTokenUsageThreshold: 0.8 });
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    (workers[0] as Worker).loadSnapshot = snapshot(0, { tokenUsage: 0.9 });
    holdLoad(workers[0] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}second`))?.id, 'w1');
    assert.deepEqual(tenants(policy, `${SYSTEM}second`), ['w1']);
  });

  void it('abandons affinity when the KV usage spread exceeds its threshold', () => {
    const { policy, workers } = setup({ balanceTokenUsageThreshold: 0.3 });
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    (workers[0] as Worker).loadSnapshot = snapshot(0, { tokenUsage: 0.5 });
    (workers[1] as Worker).loadSnapshot = snapshot(0, { tokenUsage: 0.1 });
    holdLoad(workers[0] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}second`))?.id, 'w1');
  });

  void it('leaves the KV gate off at the 1.0 defaults', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    (workers[0] as Worker).loadSnapshot = snapshot(0, { tokenUsage: 1 });
    (workers[1] as Worker).loadSnapshot = snapshot(0, { tokenUsage: 0 });
    holdLoad(workers[0] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), ask(`${SYSTEM}second`))?.id, 'w0');
  });

  void it('routes token requests on a separate token tree', () => {
    const { policy, workers } = setup();
    const head = Array.from({ length: 90 }, (_, i) => 70_000 + i); // ids above 16 bits
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ tokens: [...head, 1, 2, 3] }))?.id,
      'w0',
    );
    holdLoad(workers[0] as Worker, 1);
    assert.equal(
      policy.select(
        candidateSet(workers),
        testSelectInfo({ tokens: [...head, 9, 9], text: 'ignored' }),
      )?.id,
      'w0',
    );
    // Only the first token of 10 matches: a miss.
    assert.equal(
      policy.select(
        candidateSet(workers),
        testSelectInfo({ tokens: [70_000, ...Array<number>(9).fill(5)] }),
      )?.id,
      'w1',
    );
    assert.equal(policy.stringTree.totalChars, 0);
    assert.ok(policy.tokenTree.totalChars > 0);
  });

  void it('sends an empty prompt to the min-load worker without recording anything', () => {
    const { policy, workers } = setup();
    holdLoad(workers[0] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers), ask(''))?.id, 'w1');
    assert.equal(policy.stringTree.totalChars, 0);
  });

  void it('returns undefined when nothing is available', () => {
    const { policy, workers } = setup();
    for (const w of workers) w.overloaded = true;
    assert.equal(policy.select(candidateSet(workers), ask('x')), undefined);
  });

  void it('evicts least recently used prefixes down to maxTreeSize', () => {
    const { policy, workers, deps } = setup({ maxTreeSize: 60 });
    policy.select(candidateSet(workers), ask('a'.repeat(40))); // t=0, w0
    advanceTo(deps.clock, 1000);
    holdLoad(workers[0] as Worker, 1);
    policy.select(candidateSet(workers), ask('b'.repeat(40))); // t=1000, w1
    assert.equal(policy.stringTree.totalChars, 80);
    policy.evict();
    assert.equal(policy.stringTree.totalChars, 40);
    assert.equal(policy.stringTree.match('a'.repeat(40)).matched, 0);
    assert.equal(policy.stringTree.match('b'.repeat(40)).matched, 40);
  });

  void it('runs eviction on its timer and stops it on close', () => {
    const { policy, workers, deps } = setup({ maxTreeSize: 10, evictionIntervalSecs: 120 });
    policy.select(candidateSet(workers), ask('x'.repeat(30)));
    deps.clock.advance(119_000);
    assert.equal(policy.stringTree.totalChars, 30);
    deps.clock.advance(1_000);
    assert.equal(policy.stringTree.totalChars, 0);
    policy.close();
    assert.equal(deps.clock.size, 0, 'close stops the eviction timer');
    policy.stringTree.insert('y'.repeat(30), 'w');
    deps.clock.advance(240_000);
    assert.equal(policy.stringTree.totalChars, 30);
  });

  void it('purges a removed worker from the trees', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), ask(`${SYSTEM}first`));
    policy.select(candidateSet(workers), testSelectInfo({ tokens: [1, 2, 3] }));
    policy.onWorkerRemoved(workers[0] as Worker);
    assert.equal(policy.stringTree.totalChars, 0);
    assert.equal(policy.tokenTree.totalChars, 0);
    // The prefix is now a miss and goes by load.
    holdLoad(workers[1] as Worker, 1);
    assert.equal(policy.select(candidateSet(workers.slice(1)), ask(`${SYSTEM}again`))?.id, 'w2');
  });

  void it('publishes tree size and tenants, and removes the series on close', async () => {
    const { policy, workers, deps } = setup();
    policy.select(candidateSet(workers), ask('hello world'));
    holdLoad(workers[0] as Worker, 1);
    policy.select(candidateSet(workers), ask('different'));
    const { cacheTreeChars, cacheTreeTenants } = deps.metrics;
    assert.equal(await metricValue(cacheTreeChars, { model: 'm' }), 20);
    assert.equal(await metricValue(cacheTreeTenants, { model: 'm', tree: 'string' }), 2);
    assert.equal(await metricValue(cacheTreeTenants, { model: 'm', tree: 'token' }), 0);
    policy.close();
    assert.equal((await cacheTreeChars.get()).values.length, 0);
  });
});
