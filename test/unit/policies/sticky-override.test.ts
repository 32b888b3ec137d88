import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Policy, SelectInfo } from '../../../src/policies/policy.js';
import type { PolicyConfig } from '../../../src/policies/policy-config.js';
import { RoundRobinPolicy } from '../../../src/policies/round-robin.js';
import { stickyKeyFromRid, StickyOverridePolicy } from '../../../src/policies/sticky-override.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { metricValue, testDeps } from './policy-fixtures.js';
import { candidateSet, type CandidateSet } from '../../../src/workers/candidate-set.js';

/** An inner policy that round-robins and records what it was asked. */
class RecordingPolicy implements Policy {
  readonly name = 'round_robin' as const;
  readonly inner = new RoundRobinPolicy();
  calls = 0;
  removed: string[] = [];
  closed = false;
  answer: 'pick' | 'none' = 'pick';

  select(candidates: CandidateSet, _info: SelectInfo): Worker | undefined {
    this.calls++;
    return this.answer === 'none' ? undefined : this.inner.select(candidates);
  }
  onWorkerRemoved(worker: Worker): void {
    this.removed.push(worker.id);
  }
  close(): void {
    this.closed = true;
  }
}

function setup(config: Partial<PolicyConfig> = {}) {
  const deps = testDeps({ evictionIntervalSecs: 0, ...config });
  const inner = new RecordingPolicy();
  const policy = new StickyOverridePolicy(inner, deps);
  const workers = ['w0', 'w1', 'w2'].map((n) => testWorker(n));
  const source = (s: string): Promise<number> =>
    metricValue(deps.metrics.routingKeySource, { source: s });
  const branch = (b: string): Promise<number> =>
    metricValue(deps.metrics.manualBranch, { branch: b });
  return { policy, inner, workers, source, branch };
}

void describe('stickyKeyFromRid', () => {
  void it('strips the turn and retry suffixes', () => {
    assert.equal(stickyKeyFromRid('conv_t2_r1'), 'conv');
    assert.equal(stickyKeyFromRid('conv_t2'), 'conv');
    assert.equal(stickyKeyFromRid('conv_r3'), 'conv');
    assert.equal(stickyKeyFromRid('conv_t10_r12'), 'conv');
    assert.equal(stickyKeyFromRid('conv'), 'conv');
    assert.equal(stickyKeyFromRid('my_conv_t1'), 'my_conv');
    assert.equal(stickyKeyFromRid('conv_tx'), 'conv_tx');
    assert.equal(stickyKeyFromRid('_t1'), '_t1'); // nothing would be left: keep it whole
  });
});

void describe('StickyOverridePolicy', () => {
  void it('routes a new conversation through the wrapped policy, then pins every turn and retry', async () => {
    const { policy, inner, workers, source, branch } = setup();
    const first = policy.select(candidateSet(workers), testSelectInfo({ rid: 'conv_t1' }));
    assert.equal(first?.id, 'w0');
    for (const rid of ['conv_t2', 'conv_t2_r1', 'conv_t3', 'conv'])
      assert.equal(policy.select(candidateSet(workers), testSelectInfo({ rid })), first);
    assert.equal(inner.calls, 1); // round_robin alone would have rotated
    assert.equal(await source('rid'), 5);
    assert.equal(await branch('vacant'), 1);
    assert.equal(await branch('occupied_hit'), 4);
  });

  void it('uses the body rid ahead of the header routing key', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), testSelectInfo({ rid: 'r_t1', routingKey: 'h' }));
    assert.ok(policy.stickyMap.workersOf('r'));
    assert.equal(policy.stickyMap.workersOf('h'), undefined);
  });

  void it('falls back to the header routing key', async () => {
    const { policy, inner, workers, source } = setup();
    const first = policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'session-7' }));
    assert.equal(
      policy.select(candidateSet(workers), testSelectInfo({ routingKey: 'session-7' })),
      first,
    );
    assert.equal(inner.calls, 1);
    assert.equal(await source('header'), 2);
  });

  void it('passes a request without any key straight to the wrapped policy', async () => {
    const { policy, inner, workers, source, branch } = setup();
    const ids = Array.from(
      { length: 4 },
      () => policy.select(candidateSet(workers), testSelectInfo())?.id,
    );
    assert.deepEqual(ids, ['w0', 'w1', 'w2', 'w0']);
    assert.equal(inner.calls, 4);
    assert.equal(policy.stickyMap.size, 0);
    assert.equal(await source('none'), 4);
    assert.equal(await branch('no_routing_id'), 4);
  });

  void it('re-asks the wrapped policy when the pinned worker is unavailable, and pins the answer', () => {
    const { policy, inner, workers } = setup();
    const home = policy.select(candidateSet(workers), testSelectInfo({ rid: 'c_t1' })) as Worker;
    home.overloaded = true;
    const away = policy.select(candidateSet(workers), testSelectInfo({ rid: 'c_t2' }));
    assert.ok(away && away !== home);
    assert.equal(inner.calls, 2);
    assert.deepEqual(policy.stickyMap.workersOf('c'), [home.key, away.key]);
  });

  void it('pins nothing when the wrapped policy finds no worker', () => {
    const { policy, inner, workers } = setup();
    inner.answer = 'none';
    assert.equal(policy.select(candidateSet(workers), testSelectInfo({ rid: 'c' })), undefined);
    assert.equal(policy.stickyMap.size, 0);
  });

  void it('assigns by an explicit mode instead of delegating', () => {
    const { policy, inner, workers } = setup({ assignmentMode: 'min_group' });
    const ids = Array.from(
      { length: 9 },
      (_, i) => policy.select(candidateSet(workers), testSelectInfo({ rid: `c${i}` }))?.id,
    );
    assert.equal(inner.calls, 0);
    assert.deepEqual(ids.sort(), ['w0', 'w0', 'w0', 'w1', 'w1', 'w1', 'w2', 'w2', 'w2']);
  });

  void it('namespaces keys by PD leg', () => {
    const { policy, workers } = setup();
    policy.select(candidateSet(workers), testSelectInfo({ rid: 'c', leg: 'prefill' }));
    policy.select(candidateSet(workers), testSelectInfo({ rid: 'c', leg: 'decode' }));
    assert.ok(policy.stickyMap.workersOf('prefill:c'));
    assert.ok(policy.stickyMap.workersOf('decode:c'));
  });

  void it('keeps the wrapped policy’s name and forwards removal and close', () => {
    const { policy, inner, workers } = setup();
    assert.equal(policy.name, 'round_robin');
    policy.select(candidateSet(workers), testSelectInfo({ rid: 'c' }));
    policy.onWorkerRemoved(workers[0] as Worker);
    assert.deepEqual(inner.removed, ['w0']);
    assert.deepEqual(policy.stickyMap.workersOf('c'), []);
    policy.close();
    assert.equal(inner.closed, true);
    assert.equal(policy.stickyMap.size, 0);
  });
});
