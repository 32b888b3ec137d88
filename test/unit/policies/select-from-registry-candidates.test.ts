// Every policy chooses from the registry's maintained candidate set and follows it: a worker
// that stops being ready, is overloaded or leaves is never chosen, and one that comes back is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { POLICY_NAMES } from '../../../src/policies/names.js';
import { createPolicy } from '../../../src/policies/registry.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { testDeps } from './policy-fixtures.js';

/** The ids a policy picks over `n` requests with varied keys and prompts. */
function picks(
  policy: ReturnType<typeof createPolicy>,
  registry: WorkerRegistry,
  n = 60,
): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < n; i++) {
    const info = testSelectInfo({ routingKey: `k${i}`, text: `prompt ${i} ${'x'.repeat(i)}` });
    out.add(policy.select(registry.candidates('m', 'regular'), info)?.id ?? 'none');
  }
  return out;
}

void describe('policies over the registry candidate set', () => {
  for (const name of POLICY_NAMES) {
    it(`${name} follows status, overload and membership changes`, () => {
      const registry = new WorkerRegistry(new GatewayMetrics());
      const [a, b, c] = ['a', 'b', 'c'].map((n) => testWorker(n, { models: ['m'] })) as [
        Worker,
        Worker,
        Worker,
      ];
      for (const w of [a, b, c]) registry.add(w);
      const policy = createPolicy(name, 'm', testDeps({ evictionIntervalSecs: 0 }));
      try {
        picks(policy, registry);
        registry.setStatus(b, 'not_ready');
        c.overloaded = true;
        assert.deepEqual([...picks(policy, registry)], ['a']);

        registry.remove('a');
        assert.deepEqual([...picks(policy, registry)], ['none']);

        registry.setStatus(b, 'ready');
        c.overloaded = false;
        const back = picks(policy, registry, 200);
        assert.ok(back.size > 0 && [...back].every((id) => id === 'b' || id === 'c'), name);
      } finally {
        policy.close?.();
      }
    });
  }
});
