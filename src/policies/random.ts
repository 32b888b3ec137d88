import { randomIndex, type Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import type { Policy } from './policy.js';

/** Uniform choice among the available workers: O(1) over the registry's available list. */
export class RandomPolicy implements Policy {
  readonly name = 'random' as const;
  constructor(private readonly random: Random) {}

  select(candidates: CandidateSet): Worker | undefined {
    const workers = candidates.available;
    return workers.length === 0 ? undefined : workers[randomIndex(this.random, workers.length)];
  }
}
