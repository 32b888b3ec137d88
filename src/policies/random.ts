import { randomIndex, type Random } from '../util/random.js';
import type { Worker } from '../workers/worker.js';
import { availableWorkers, type Policy } from './policy.js';

/** Uniform choice among the available workers. */
export class RandomPolicy implements Policy {
  readonly name = 'random' as const;
  constructor(private readonly random: Random) {}

  select(candidates: readonly Worker[]): Worker | undefined {
    const workers = availableWorkers(candidates);
    return workers.length === 0 ? undefined : workers[randomIndex(this.random, workers.length)];
  }
}
