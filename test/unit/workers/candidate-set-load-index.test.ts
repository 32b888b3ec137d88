// A maintained candidate set's least-loaded worker and total available load follow every lease
// and availability change without a scan; checked against a set computed from scratch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease } from '../../../src/util/lease.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { randomIndex, seededRandom } from '@switchyard/kit';
import { candidateSet } from '../../../src/workers/candidate-set.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';

function fleet(n: number): { registry: WorkerRegistry; workers: Worker[] } {
  const registry = new WorkerRegistry(new GatewayMetrics());
  const workers = Array.from({ length: n }, (_, i) => testWorker(`w${i}`, { models: ['m'] }));
  for (const w of workers) registry.add(w);
  return { registry, workers };
}

void describe('candidate set load index', () => {
  it('orders by load, then processed requests, then registry order', () => {
    const { registry, workers } = fleet(3);
    const [a, b, c] = workers as [Worker, Worker, Worker];
    const set = registry.candidates('m', 'regular');
    assert.equal(set.leastLoaded(), a, 'all idle: the first');
    const la = a.acquireLoad();
    assert.equal(set.leastLoaded(), b);
    assert.equal(set.availableLoad(), 1);
    const lb = b.acquireLoad();
    const lc = c.acquireLoad();
    assert.equal(set.leastLoaded(), a, 'equal load and processed: registry order');
    lb.release();
    assert.equal(set.leastLoaded(), b);
    la.release();
    // a and b: load 0, processed 1 each; a comes first.
    assert.equal(set.leastLoaded(), a);
    b.acquireLoad().release();
    assert.equal(set.leastLoaded(), a, 'b has processed more');
    assert.equal(set.availableLoad(), 1);
    lc.release();
    assert.equal(set.leastLoaded(), a, 'a and c have processed one each; a comes first');
    assert.equal(set.availableLoad(), 0);
    a.acquireLoad().release();
    assert.equal(set.leastLoaded(), c, 'c has processed the fewest');
  });

  it('counts only available workers', () => {
    const { registry, workers } = fleet(2);
    const [a, b] = workers as [Worker, Worker];
    const set = registry.candidates('m', 'regular');
    b.acquireLoad();
    assert.equal(set.leastLoaded(), a);
    registry.setStatus(a, 'not_ready');
    assert.equal(set.leastLoaded(), b);
    assert.equal(set.availableLoad(), 1);
    a.acquireLoad();
    assert.equal(set.availableLoad(), 1, 'load on an unavailable worker is not counted');
    registry.setStatus(b, 'draining');
    assert.equal(set.leastLoaded(), undefined);
    assert.equal(set.availableLoad(), 0);
    registry.setStatus(a, 'ready');
    assert.equal(set.availableLoad(), 1);
  });

  it('matches a set computed from scratch through random leases and status changes', () => {
    const random = seededRandom(11);
    const { registry, workers } = fleet(12);
    const set = registry.candidates('m', 'regular');
    const held: Lease[] = [];
    for (let step = 0; step < 3000; step++) {
      const w = workers[randomIndex(random, workers.length)] as Worker;
      const op = randomIndex(random, 10);
      if (op < 5) held.push(w.acquireLoad());
      else if (op < 9 && held.length > 0)
        held.splice(randomIndex(random, held.length), 1)[0]?.release();
      else registry.setStatus(w, w.status === 'ready' ? 'not_ready' : 'ready');
      const oracle = candidateSet(registry.forModel('m', 'regular'));
      assert.equal(set.leastLoaded(), oracle.leastLoaded(), `step ${step}`);
      assert.equal(set.availableLoad(), oracle.availableLoad(), `step ${step}`);
    }
  });
});
