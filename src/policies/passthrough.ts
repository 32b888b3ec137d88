/**
 * SMG's `passthrough` (policies/passthrough.rs): every request goes to the first available
 * worker, for gateways in front of a single engine where balancing buys nothing. It reads no
 * load and keeps no state, so it never makes the load monitor poll.
 */
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import type { Policy } from './policy.js';

export class PassthroughPolicy implements Policy {
  readonly name = 'passthrough' as const;
  /** Warned once per instance: the warning would otherwise repeat on every request. */
  #warnedMany = false;

  /** `warnMany` is told (once) when more than one candidate is seen: only the first gets traffic. */
  constructor(private readonly warnMany: (workers: number) => void = () => undefined) {}

  select(candidates: CandidateSet): Worker | undefined {
    const all = candidates.all;
    if (all.length > 1 && !this.#warnedMany) {
      this.#warnedMany = true;
      this.warnMany(all.length);
    }
    return candidates.available[0];
  }
}
