/**
 * least_load (SMG `least_load.rs`, smg-core.md §4.5): the available worker with the lowest
 * expected wait (least-load-scorer.ts), ties broken uniformly at random by reservoir sampling.
 * The chosen worker's since-poll tally is credited at once, so the next selection before the
 * next load report already sees it. Its processed counter is incremented by the load lease the
 * router takes (`Worker.acquireLoad`), not here, so it is not counted twice.
 *
 * In-flight tokens per dispatch are p̄: SMG uses the real token count only on gRPC, and this
 * gateway routes HTTP (the `x-smg-routing-tokens` hint may be a truncated head, so it is not a
 * request length).
 */
import { randomIndex, type Random } from '../util/random.js';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { LeastLoadScorer, type LeastLoadParams } from './least-load-scorer.js';
import type { Policy } from './policy.js';

export class LeastLoadPolicy implements Policy {
  readonly name = 'least_load' as const;
  readonly #scorer: LeastLoadScorer;

  constructor(
    params: LeastLoadParams,
    private readonly random: Random,
  ) {
    this.#scorer = new LeastLoadScorer(params);
  }

  select(candidates: CandidateSet): Worker | undefined {
    const available = candidates.available;
    const scorer = this.#scorer;
    if (available.length === 0) return undefined;
    if (available.length === 1 && scorer.params.maxWaitingRequests <= 0) return available[0];

    const fleet = scorer.fleet(available);
    let best: Worker | undefined;
    let bestScore = Infinity;
    let ties = 0;
    for (const w of available) {
      // A capped worker is dropped; if all are capped the request fails selection, as SMG.
      if (scorer.capped(w)) continue;
      const score = scorer.score(w, fleet);
      if (best === undefined || score < bestScore) {
        best = w;
        bestScore = score;
        ties = 1;
      } else if (score === bestScore) {
        ties++;
        if (randomIndex(this.random, ties) === 0) best = w;
      }
    }
    if (best !== undefined) scorer.credit(best, undefined);
    return best;
  }

  onWorkerRemoved(worker: Worker): void {
    this.#scorer.forget(worker);
  }
}
