// cache_aware on the registry's candidate set reads its min-load worker and mean load from the
// set's load index, and its KV gate from a cache that a new engine report refreshes: a request
// touches a bounded number of workers however large the fleet.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { CacheAwarePolicy } from '../../../src/policies/cache-aware.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { holdLoad, snapshot, testDeps } from './policy-fixtures.js';

void describe('cache_aware on a large fleet', () => {
  it('reads the load of a bounded number of workers per request', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    let reads = 0;
    for (let i = 0; i < 1000; i++) {
      const w = testWorker(`w${i}`, { models: ['m'] });
      // Counts every read of the worker's in-flight load (an own property shadows the accessor).
      Object.defineProperty(w, 'load', {
        get(this: Worker) {
          reads++;
          return Reflect.get<Worker, 'load'>(Worker.prototype, 'load', this);
        },
      });
      registry.add(w);
    }
    const policy = new CacheAwarePolicy('m', testDeps({ evictionIntervalSecs: 0 }));
    try {
      // The first request builds the set's load index (one pass over the workers).
      policy.select(registry.candidates('m', 'regular'), testSelectInfo({ text: 'warm up' }));
      for (let i = 0; i < 20; i++) {
        const info = testSelectInfo({ text: `system prompt, then question ${i % 4}` });
        reads = 0;
        const worker = policy.select(registry.candidates('m', 'regular'), info);
        assert.ok(worker);
        assert.ok(reads <= 20, `${reads} worker loads read for one request`);
        // The lease the router takes moves the set's load index (its reads are not counted).
        worker.acquireLoad();
      }
    } finally {
      policy.close();
    }
  });

  it('takes the min-load worker once an engine report crosses the KV threshold', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    const [a, b] = ['a', 'b'].map((n) => testWorker(n, { models: ['m'] })) as [Worker, Worker];
    registry.add(a);
    registry.add(b);
    a.loadSnapshot = snapshot(1, { tokenUsage: 0.1 });
    b.loadSnapshot = snapshot(1, { tokenUsage: 0.1 });
    const policy = new CacheAwarePolicy(
      'm',
      testDeps({ evictionIntervalSecs: 0, overloadTokenUsageThreshold: 0.5 }),
    );
    const ask = (): string | undefined =>
      policy.select(registry.candidates('m', 'regular'), testSelectInfo({ text: 'same prompt' }))
        ?.id;
    try {
      assert.equal(ask(), 'a', 'a miss: the min-load worker, a');
      holdLoad(a, 1);
      assert.equal(ask(), 'a', 'a hit on a, under the spill gate');
      b.loadSnapshot = snapshot(2, { tokenUsage: 0.9 });
      assert.equal(ask(), 'b', 'KV gate: the min-load worker, b');
    } finally {
      policy.close();
    }
  });
});
