/**
 * power_of_two (SMG `power_of_two.rs`): two distinct random available workers, `i1 = rand(n)`,
 * `i2 = (i1 + 1 + rand(n − 1)) % n`; the one with the lower least_load score wins, a tie is a coin
 * flip. The scorer runs with SMG's default parameters (λ 0.15, p̄ 1024, throughput 2000, no waiting
 * cap): SMG does not pass the `--least-load-*` knobs here. The winner's since-poll tally is
 * credited as in least_load, so a burst between two load reports does not keep picking the same
 * worker of a pair.
 *
 * O(1): two picks from the registry's available list. The fleet view (needed only to score a
 * worker without an engine report) is cached until the available list or a report changes.
 */
import { randomIndex, type Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { ALL_REPORTING, DEFAULT_LEAST_LOAD_PARAMS, LeastLoadScorer } from './least-load-scorer.js';
import type { Policy } from './policy.js';

export class PowerOfTwoPolicy implements Policy {
  readonly name = 'power_of_two' as const;
  readonly #scorer = new LeastLoadScorer(DEFAULT_LEAST_LOAD_PARAMS);

  constructor(private readonly random: Random) {}

  select(candidates: CandidateSet): Worker | undefined {
    const available = candidates.available;
    const n = available.length;
    if (n === 0) return undefined;
    if (n === 1) return available[0];

    const i1 = randomIndex(this.random, n);
    const i2 = (i1 + 1 + randomIndex(this.random, n - 1)) % n;
    const a = available[i1] as Worker;
    const b = available[i2] as Worker;
    const fleet =
      a.loadSnapshot === undefined || b.loadSnapshot === undefined
        ? this.#scorer.fleetOf(candidates)
        : ALL_REPORTING;
    const sa = this.#scorer.score(a, fleet);
    const sb = this.#scorer.score(b, fleet);
    const chosen = sa < sb ? a : sb < sa ? b : this.random.next() < 0.5 ? a : b;
    this.#scorer.credit(chosen, undefined);
    return chosen;
  }

  onWorkerRemoved(worker: Worker): void {
    this.#scorer.forget(worker);
  }
}
