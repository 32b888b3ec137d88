/**
 * least_load (SMG `least_load.rs`): the available worker with the lowest expected wait
 * (least-load-scorer.ts), ties broken uniformly at random by reservoir sampling. The chosen
 * worker's since-poll tally is credited at once, so the next selection before the next load report
 * already sees it. Its processed counter is incremented by the load lease the router takes
 * (`Worker.acquireLoad`), not here, so it is not counted twice.
 *
 * In-flight tokens per dispatch are p̄: SMG uses the real token count only on gRPC, and this
 * gateway routes HTTP (the `x-smg-routing-tokens` hint may be a truncated head, so it is not a
 * request length).
 *
 * Cost: up to `LEAST_LOAD_SAMPLE` available workers every one is scored, as SMG. Above that, a
 * bounded sample of `LEAST_LOAD_SAMPLE` distinct workers at random is scored instead (the
 * best of k random choices), so a selection costs the same on a thousand workers as on
 * thirty-two. A score changes with every dispatch and every engine report, so a heap ordered
 * by score would be re-keyed far more often than it is read. Only when every sampled worker is
 * capped by the waiting cap are all workers scored, so a request still fails only when every
 * worker is capped.
 */
import { randomIndex, type Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import {
  ALL_REPORTING,
  LeastLoadScorer,
  type FleetView,
  type LeastLoadParams,
} from './least-load-scorer.js';
import type { Policy } from './policy.js';

/** Above this many available workers, this many are sampled and scored. */
export const LEAST_LOAD_SAMPLE = 32;

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
    const n = available.length;
    if (n === 0) return undefined;
    if (n === 1 && this.#scorer.params.maxWaitingRequests <= 0) return available[0];

    let best: Worker | undefined;
    if (n <= LEAST_LOAD_SAMPLE) {
      best = this.#best(candidates, 0, 1, n);
    } else {
      // start + k·stride (mod n) with gcd(stride, n) = 1 visits distinct workers.
      const start = randomIndex(this.random, n);
      best =
        this.#best(candidates, start, coprimeStride(this.random, n), LEAST_LOAD_SAMPLE) ??
        this.#best(candidates, 0, 1, n);
    }
    if (best !== undefined) this.#scorer.credit(best, undefined);
    return best;
  }

  onWorkerRemoved(worker: Worker): void {
    this.#scorer.forget(worker);
  }

  /** The lowest-scoring uncapped worker of `count` visited from `start` by `stride`. */
  #best(
    candidates: CandidateSet,
    start: number,
    stride: number,
    count: number,
  ): Worker | undefined {
    const available = candidates.available;
    const n = available.length;
    const scorer = this.#scorer;
    // The fleet view only scores a worker without a report; it is fetched for the first one.
    let fleet: FleetView | undefined;
    let best: Worker | undefined;
    let bestScore = Infinity;
    let ties = 0;
    for (let k = 0, i = start; k < count; k++, i = (i + stride) % n) {
      const w = available[i] as Worker;
      // A capped worker is dropped; if all are capped the request fails selection, as SMG.
      if (scorer.capped(w)) continue;
      if (w.loadSnapshot === undefined) fleet ??= scorer.fleetOf(candidates);
      const score = scorer.score(w, fleet ?? ALL_REPORTING);
      if (best === undefined || score < bestScore) {
        best = w;
        bestScore = score;
        ties = 1;
      } else if (score === bestScore) {
        ties++;
        if (randomIndex(this.random, ties) === 0) best = w;
      }
    }
    return best;
  }
}

/** A random step in [1, n) sharing no factor with n (n ≥ 2). */
function coprimeStride(random: Random, n: number): number {
  let stride = 1 + randomIndex(random, n - 1);
  while (gcd(stride, n) !== 1) stride = stride === n - 1 ? 1 : stride + 1;
  return stride;
}

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}
