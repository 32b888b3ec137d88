import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaseScope, lease } from '../../../src/admission/lease.js';
import { Worker } from '../../../src/workers/worker.js';

function worker(): Worker {
  return new Worker({
    id: 'w1',
    url: 'http://w1:8000',
    type: 'regular',
    runtime: 'sglang',
    models: [],
    labels: {},
    priority: 50,
    cost: 1,
    spec: { url: 'http://w1:8000' },
  });
}

void describe('lease', () => {
  void it('runs the release callback on the first release only', () => {
    let calls = 0;
    const l = lease(() => {
      calls += 1;
    });
    assert.equal(l.released, false);
    assert.equal(calls, 0);
    l.release();
    assert.equal(l.released, true);
    l.release();
    l.release();
    assert.equal(calls, 1);
  });
});

void describe('LeaseScope', () => {
  void it('releases every lease it holds, once, however often releaseAll is called', () => {
    const calls = [0, 0, 0];
    const scope = new LeaseScope();
    const leases = calls.map((_, i) =>
      scope.add(
        lease(() => {
          calls[i] = (calls[i] ?? 0) + 1;
        }),
      ),
    );
    scope.releaseAll();
    scope.releaseAll();
    assert.deepEqual(calls, [1, 1, 1]);
    assert.ok(leases.every((l) => l.released));
  });

  void it('returns the added lease so it can be released early without a double release', () => {
    let calls = 0;
    const scope = new LeaseScope();
    const l = scope.add(
      lease(() => {
        calls += 1;
      }),
    );
    l.release();
    scope.releaseAll();
    assert.equal(calls, 1);
  });

  void it('releases leases added after an earlier releaseAll on the next one', () => {
    const scope = new LeaseScope();
    let first = 0;
    let second = 0;
    scope.add(lease(() => (first += 1)));
    scope.releaseAll();
    scope.add(lease(() => (second += 1)));
    scope.releaseAll();
    assert.equal(first, 1);
    assert.equal(second, 1);
  });
});

void describe('Worker.acquireLoad', () => {
  void it('adds one unit of load per lease and removes it exactly once', () => {
    const w = worker();
    assert.equal(w.load, 0);
    const l1 = w.acquireLoad();
    const l2 = w.acquireLoad();
    assert.equal(w.load, 2);
    l1.release();
    l1.release();
    assert.equal(w.load, 1);
    l2.release();
    l2.release();
    assert.equal(w.load, 0);
  });

  void it('returns to zero when a scope holding its leases is released twice', () => {
    const w = worker();
    const scope = new LeaseScope();
    scope.add(w.acquireLoad());
    const early = scope.add(w.acquireLoad());
    assert.equal(w.load, 2);
    early.release();
    scope.releaseAll();
    scope.releaseAll();
    assert.equal(w.load, 0);
  });

  void it('tells the load listener about each change', () => {
    const w = worker();
    const seen: number[] = [];
    w.onLoadChange((x) => seen.push(x.load));
    const l = w.acquireLoad();
    l.release();
    l.release();
    assert.deepEqual(seen, [1, 0]);
  });
});
