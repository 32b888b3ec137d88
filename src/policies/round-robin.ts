import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import type { Policy } from './policy.js';

/**
 * `available[counter++ % n]`, as SMG: one counter per policy instance, modulus over the list
 * available at this moment (so a worker leaving shifts the rotation rather than skipping a turn).
 * O(1): the registry keeps the available list.
 */
export class RoundRobinPolicy implements Policy {
  readonly name = 'round_robin' as const;
  #counter = 0;

  select(candidates: CandidateSet): Worker | undefined {
    const workers = candidates.available;
    if (workers.length === 0) return undefined;
    const index = this.#counter % workers.length;
    this.#counter = (this.#counter + 1) % Number.MAX_SAFE_INTEGER;
    return workers[index];
  }
}
