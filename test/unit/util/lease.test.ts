import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lease } from '../../../src/util/lease.js';
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

  void it('is disposable: disposing releases once, and a released lease disposes to nothing', () => {
    let calls = 0;
    const l = lease(() => (calls += 1));
    l[Symbol.dispose]();
    l[Symbol.dispose]();
    l.release();
    assert.equal(calls, 1);
    assert.equal(l.released, true);
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

  void it('returns to zero when `using` scopes end, whichever way they end', () => {
    const w = worker();
    const hold = (fail: boolean): void => {
      using first = w.acquireLoad();
      using early = w.acquireLoad();
      assert.equal(w.load, 2);
      early.release();
      assert.equal(w.load, 1);
      assert.equal(first.released, false);
      if (fail) throw new Error('boom');
    };
    hold(false);
    assert.equal(w.load, 0);
    assert.throws(() => hold(true), /boom/);
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
