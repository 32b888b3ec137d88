/**
 * The contract every routing policy holds (src/policies/policy.ts), as one suite a policy test
 * runs with its own factory, in the style of hono's `runTest({ newRouter })`:
 *
 * - it returns one of the candidates it was given, or none; none for an empty set;
 * - it chooses among the subset its kind names: `available` (ready, circuit allows, not
 *   overloaded) for most policies, `eligible` (ready, not overloaded; the circuit is ignored) for
 *   the hash policies, and returns none when that subset is empty;
 * - with a worker in that subset and no `x-smg-target-worker` pin, it returns one;
 * - it answers synchronously (the router takes the lease in the same step), leaves the
 *   candidate lists as they were, and copes with every SelectInfo shape (no text, long text,
 *   token ids, keys, a malformed or out-of-range pin, each leg);
 * - given the same seed and the same requests, it makes the same choices;
 * - once told a worker left, it keeps choosing among the rest, never the one that left.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Leg, Policy, SelectInfo } from '../../../src/policies/policy.js';
import { seededRandom, type Random } from '@switchyard/kit';
import { candidateSet, type CandidateSet } from '../../../src/workers/candidate-set.js';
import type { Worker } from '../../../src/workers/worker.js';
import { testSelectInfo, testWorker } from '../../helpers/workers.js';
import { holdLoad, openCircuitWorker } from './policy-fixtures.js';

export interface PolicySuiteOptions {
  /** The name the test is reported under. */
  name: string;
  /** A new policy; equal seeds must give policies that choose alike. */
  newPolicy(seed: number): Policy;
  /** The candidate subset the policy chooses among (policy.ts): `available` unless it hashes. */
  choosesAmong?: 'available' | 'eligible';
}

const LEGS: readonly Leg[] = ['single', 'prefill', 'decode'];
const WORDS = ['system', 'you are helpful', 'hello', 'translate', 'the', 'story', '数据', '🙂'];

/** `n` request shapes drawn from a seeded random: every SelectInfo field takes several forms. */
function infos(n: number, workers: number, random: Random = seededRandom(7)): SelectInfo[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random.next() * xs.length)] as T;
  return Array.from({ length: n }, () => {
    const words = Array.from({ length: Math.floor(random.next() * 40) }, () => pick(WORDS));
    const r = random.next();
    return testSelectInfo({
      leg: pick(LEGS),
      text: words.join(' '),
      routingKey: r < 0.3 ? `session-${Math.floor(random.next() * 5)}` : undefined,
      tokens: r > 0.8 ? [1, 2, 3, Math.floor(random.next() * 100)] : undefined,
      rid: r > 0.9 ? `rid-${Math.floor(random.next() * 3)}` : undefined,
      headers: r > 0.5 && r < 0.6 ? { 'x-smg-routing-key': 'from-header' } : {},
      // A pin now and then: in range, out of range, or malformed (-1).
      targetWorker: r > 0.95 ? pick([-1, 0, workers - 1, workers + 3]) : undefined,
    });
  });
}

/** A mixed fleet: ready workers (some loaded), not ready, overloaded and circuit-open ones. */
function mixedFleet(): Worker[] {
  const [a, b, c] = [testWorker('a'), testWorker('b'), testWorker('c')];
  holdLoad(b, 2);
  holdLoad(c, 5);
  const overloaded = testWorker('overloaded');
  overloaded.overloaded = true;
  return [
    testWorker('pending', { status: 'pending' }),
    a,
    openCircuitWorker('open-circuit'),
    b,
    testWorker('not-ready', { status: 'not_ready' }),
    overloaded,
    c,
  ];
}

function using<T>(policy: Policy, body: (p: Policy) => T): T {
  try {
    return body(policy);
  } finally {
    policy.close?.();
  }
}

export function runPolicySuite(opts: PolicySuiteOptions): void {
  const among = opts.choosesAmong ?? 'available';
  const subset = (set: CandidateSet): readonly Worker[] =>
    among === 'available' ? set.available : set.eligible;
  const noPin = (info: SelectInfo): SelectInfo => ({ ...info, targetWorker: undefined });

  void describe(`policy conformance: ${opts.name}`, () => {
    void it('returns none for an empty candidate set', () => {
      using(opts.newPolicy(1), (policy) => {
        for (const info of infos(20, 0))
          assert.equal(policy.select(candidateSet([]), info), undefined);
      });
    });

    void it(`returns only a candidate from the ${among} subset, synchronously`, () => {
      const fleet = mixedFleet();
      const set = candidateSet(fleet);
      using(opts.newPolicy(1), (policy) => {
        for (const info of infos(300, fleet.length)) {
          const chosen = policy.select(set, info) as unknown;
          assert.ok(!(chosen instanceof Promise), 'select must not await');
          if (chosen === undefined) continue;
          assert.ok(
            subset(set).includes(chosen as Worker),
            `chose ${(chosen as Worker).id}, not among the ${among} candidates`,
          );
        }
      });
    });

    void it(`returns none when no candidate is ${among}`, () => {
      const down = [
        testWorker('pending', { status: 'pending' }),
        testWorker('not-ready', { status: 'not_ready' }),
        testWorker('failed', { status: 'failed' }),
        testWorker('draining', { status: 'draining' }),
      ];
      const overloaded = testWorker('overloaded');
      overloaded.overloaded = true;
      down.push(overloaded);
      // A circuit-open worker is still eligible: only policies choosing among `available` skip it.
      if (among === 'available') down.push(openCircuitWorker('open-circuit'));
      const set = candidateSet(down);
      using(opts.newPolicy(1), (policy) => {
        for (const info of infos(50, down.length))
          assert.equal(policy.select(set, info), undefined, JSON.stringify(info));
      });
    });

    void it(`returns a worker whenever one is ${among} and no worker is pinned`, () => {
      const fleet = mixedFleet();
      const set = candidateSet(fleet);
      const lone = candidateSet([testWorker('down', { status: 'not_ready' }), testWorker('only')]);
      using(opts.newPolicy(1), (policy) => {
        for (const info of infos(100, fleet.length).map(noPin)) {
          assert.ok(policy.select(set, info), `none chosen for ${JSON.stringify(info)}`);
          assert.equal(policy.select(lone, info)?.id, 'only');
        }
      });
    });

    void it('leaves the candidate lists as they were', () => {
      const fleet = mixedFleet();
      const set = candidateSet(fleet);
      const before = [set.all, set.available, set.eligible].map((l) => l.map((w) => w.id));
      using(opts.newPolicy(1), (policy) => {
        for (const info of infos(100, fleet.length)) policy.select(set, info);
      });
      const after = [set.all, set.available, set.eligible].map((l) => l.map((w) => w.id));
      assert.deepEqual(after, before);
    });

    void it('chooses alike given the same seed and the same requests', () => {
      const fleet = mixedFleet();
      const sets = [candidateSet(fleet), candidateSet(fleet.slice(1, 5)), candidateSet(fleet)];
      const requests = infos(300, fleet.length);
      const run = (seed: number): (string | undefined)[] =>
        using(opts.newPolicy(seed), (policy) =>
          requests.map((info, i) => policy.select(sets[i % sets.length] as CandidateSet, info)?.id),
        );
      assert.deepEqual(run(42), run(42));
    });

    void it('after a worker left, keeps choosing, never the one that left', () => {
      const fleet = [testWorker('a'), testWorker('b'), testWorker('c'), testWorker('d')];
      using(opts.newPolicy(1), (policy) => {
        const requests = infos(200, fleet.length).map(noPin);
        // Warm up any affinity (trees, sticky keys, rings) on the whole fleet.
        for (const info of requests) policy.select(candidateSet(fleet), info);
        const gone = fleet[1] as Worker;
        policy.onWorkerRemoved?.(gone);
        const rest = candidateSet(fleet.filter((w) => w !== gone));
        for (const info of requests) {
          const chosen = policy.select(rest, info);
          assert.ok(chosen, 'a worker is still available');
          assert.notEqual(chosen, gone);
        }
      });
    });
  });
}
