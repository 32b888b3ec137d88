import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HealthCounters, HealthThresholds } from '../../../src/workers/health-state.js';
import { freshCounters, nextHealthStatus } from '../../../src/workers/health-state.js';
import type { WorkerStatus } from '../../../src/workers/worker.js';

const T: HealthThresholds = { success: 2, failure: 3 };

interface Run {
  status: WorkerStatus;
  counters: HealthCounters;
  /** Status after each probe, in order. */
  trace: WorkerStatus[];
}

/** Feeds probe results ('+' success, '-' failure) through the machine. */
function run(start: WorkerStatus, probes: string, counters: HealthCounters = freshCounters()): Run {
  let status = start;
  let c = counters;
  const trace: WorkerStatus[] = [];
  for (const p of probes) {
    const next = nextHealthStatus(status, c, p === '+', T);
    status = next.status;
    c = next.counters;
    trace.push(status);
  }
  return { status, counters: c, trace };
}

void describe('nextHealthStatus: pending', () => {
  void it('becomes ready after 2 consecutive successes, not 1', () => {
    assert.deepEqual(run('pending', '++').trace, ['pending', 'ready']);
  });

  void it('resets the counters on becoming ready', () => {
    assert.deepEqual(run('pending', '++').counters, freshCounters());
  });

  void it('needs the successes to be consecutive', () => {
    assert.deepEqual(run('pending', '+-+').trace, ['pending', 'pending', 'pending']);
    assert.equal(run('pending', '+-++').status, 'ready');
  });

  void it('fails after 30 probes without 2 consecutive successes', () => {
    const alternating = '+-'.repeat(15);
    const r = run('pending', alternating);
    assert.equal(r.trace.length, 30);
    assert.deepEqual(r.trace.slice(0, 29), Array<WorkerStatus>(29).fill('pending'));
    assert.equal(r.status, 'failed');
    assert.deepEqual(r.counters, freshCounters());
  });

  void it('fails after 30 straight failures, not 29', () => {
    assert.equal(run('pending', '-'.repeat(29)).status, 'pending');
    assert.equal(run('pending', '-'.repeat(30)).status, 'failed');
  });

  void it('does not fail a pending worker on 3 or 9 consecutive failures', () => {
    assert.equal(run('pending', '-'.repeat(9)).status, 'pending');
  });

  void it('still becomes ready if the 2nd success lands on the 30th probe', () => {
    assert.equal(run('pending', '-'.repeat(28) + '++').status, 'ready');
  });

  void it('counts pending probes across successes and failures', () => {
    const r = run('pending', '+-+-');
    assert.equal(r.counters.pendingProbes, 4);
    assert.equal(r.counters.failures, 1);
    assert.equal(r.counters.successes, 0);
  });
});

void describe('nextHealthStatus: ready', () => {
  void it('becomes not_ready after 3 consecutive failures, not 2', () => {
    assert.deepEqual(run('ready', '---').trace, ['ready', 'ready', 'not_ready']);
  });

  void it('stays ready when a success interrupts the failures', () => {
    const r = run('ready', '--+--');
    assert.equal(r.status, 'ready');
    assert.equal(r.counters.failures, 2);
    assert.equal(run('ready', '--+---').status, 'not_ready');
  });

  void it('stays ready on successes', () => {
    assert.equal(run('ready', '+'.repeat(50)).status, 'ready');
  });

  void it('never goes from ready straight to failed', () => {
    assert.ok(!run('ready', '---').trace.includes('failed'));
  });
});

void describe('nextHealthStatus: not_ready', () => {
  void it('becomes ready after 2 consecutive successes', () => {
    const r = run('not_ready', '++');
    assert.deepEqual(r.trace, ['not_ready', 'ready']);
    assert.deepEqual(r.counters, freshCounters());
  });

  void it('needs the successes to be consecutive', () => {
    assert.equal(run('not_ready', '+-+').status, 'not_ready');
  });

  void it('fails after 9 consecutive failures, not 8', () => {
    const r = run('not_ready', '-'.repeat(9));
    assert.deepEqual(r.trace.slice(0, 8), Array<WorkerStatus>(8).fill('not_ready'));
    assert.equal(r.status, 'failed');
  });

  void it('restarts the failure count after a success', () => {
    assert.equal(run('not_ready', '-'.repeat(8) + '+' + '-'.repeat(8)).status, 'not_ready');
    assert.equal(run('not_ready', '-'.repeat(8) + '+' + '-'.repeat(9)).status, 'failed');
  });

  void it('counts the failure streak that made a ready worker not_ready toward the 9', () => {
    // One unbroken streak: failures 1-3 take ready to not_ready, failure 9 takes it to failed.
    const r = run('ready', '-'.repeat(9));
    assert.equal(r.trace[2], 'not_ready');
    assert.deepEqual(r.trace.slice(2, 8), Array<WorkerStatus>(6).fill('not_ready'));
    assert.equal(r.status, 'failed');
  });

  void it('can go ready → not_ready → ready → not_ready', () => {
    assert.deepEqual(run('ready', '---++---').trace, [
      'ready',
      'ready',
      'not_ready',
      'not_ready',
      'ready',
      'ready',
      'ready',
      'not_ready',
    ]);
  });
});

void describe('nextHealthStatus: terminal states', () => {
  for (const status of ['failed', 'draining'] as const) {
    void it(`${status} never changes, whatever the probes say`, () => {
      const r = run(status, '++++++' + '-'.repeat(40));
      assert.ok(r.trace.every((s) => s === status));
      assert.deepEqual(r.counters, freshCounters());
    });
  }
});

void describe('nextHealthStatus: purity', () => {
  void it('does not mutate the counters it is given', () => {
    const c: HealthCounters = { successes: 1, failures: 0, pendingProbes: 5 };
    const snapshot = { ...c };
    nextHealthStatus('pending', c, true, T);
    nextHealthStatus('pending', c, false, T);
    assert.deepEqual(c, snapshot);
  });

  void it('honours other thresholds', () => {
    const t = { success: 1, failure: 1 };
    assert.equal(nextHealthStatus('pending', freshCounters(), true, t).status, 'ready');
    assert.equal(nextHealthStatus('ready', freshCounters(), false, t).status, 'not_ready');
    assert.equal(
      nextHealthStatus('not_ready', { successes: 0, failures: 2, pendingProbes: 0 }, false, t)
        .status,
      'failed',
    );
    let pending = { status: 'pending' as WorkerStatus, counters: freshCounters() };
    for (let i = 0; i < 9; i++)
      pending = nextHealthStatus(pending.status, pending.counters, false, t);
    assert.equal(pending.status, 'pending');
    pending = nextHealthStatus(pending.status, pending.counters, false, t);
    assert.equal(pending.status, 'failed');
  });
});

void describe('nextHealthStatus: a threshold of 0 acts as 1', () => {
  const zero: HealthThresholds = { success: 0, failure: 0 };
  const step = (status: WorkerStatus, ok: boolean, t: HealthThresholds = zero): WorkerStatus =>
    nextHealthStatus(status, freshCounters(), ok, t).status;

  void it('keeps a ready worker ready on a success (failure threshold 0)', () => {
    assert.equal(step('ready', true), 'ready');
    assert.equal(step('ready', true, { success: 2, failure: 0 }), 'ready');
  });

  void it('takes a ready worker to not_ready on its first failure', () => {
    assert.equal(step('ready', false), 'not_ready');
  });

  void it('does not make a not_ready worker ready on a failure (success threshold 0)', () => {
    assert.equal(step('not_ready', false, { success: 0, failure: 3 }), 'not_ready');
  });

  void it('makes a not_ready or pending worker ready on its first success', () => {
    assert.equal(step('not_ready', true), 'ready');
    assert.equal(step('pending', true), 'ready');
  });

  void it('does not fail a not_ready worker on a success that falls short of the success threshold', () => {
    assert.equal(step('not_ready', true, { success: 2, failure: 0 }), 'not_ready');
  });

  void it('fails a pending worker on its first probe that does not make it ready', () => {
    assert.equal(step('pending', false, { success: 0, failure: 0 }), 'failed');
    assert.equal(step('pending', true, { success: 2, failure: 0 }), 'failed');
  });
});
