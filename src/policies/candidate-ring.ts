/**
 * The hash ring of one policy's candidate set (SMG's `WorkerRegistry` keeps one ring per model and
 * updates it on membership change). The registry publishes a new `all` array only when membership
 * changes, so a request with the array the ring was built from costs one identity compare; another
 * array (membership changed, or a list narrowed by the caller) is compared worker by worker, and
 * the ring is only touched when membership differs: incrementally for a few changes, rebuilt for
 * many. Ring members are worker keys (the URL, `url@rank` for a DP-aware worker, so ranks sharing
 * one URL still get distinct ring positions).
 */
import { sameWorkers } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { HashRing } from './hash-ring.js';

/** Beyond this many joins and leaves at once, one sort beats repeated merges. */
const INCREMENTAL_LIMIT = 8;

export class CandidateRing {
  #ring = new HashRing();
  #workers: readonly Worker[] = [];
  #byKey = new Map<string, Worker>();
  readonly #acceptEligible = (key: string): boolean =>
    this.#byKey.get(key)?.isHealthyAndEligible() ?? false;

  get ring(): HashRing {
    return this.#ring;
  }

  /** Brings the ring in line with `candidates` (a candidate set's `all`, never mutated). */
  sync(candidates: readonly Worker[]): void {
    if (this.#workers === candidates) return;
    if (sameWorkers(this.#workers, candidates)) {
      this.#workers = candidates;
      return;
    }
    const next = new Map<string, Worker>();
    for (const w of candidates) next.set(w.key, w);
    const leaving = [...this.#ring.members()].filter((key) => !next.has(key));
    const joining = [...next.keys()].filter((key) => !this.#ring.has(key));
    if (leaving.length + joining.length > INCREMENTAL_LIMIT) {
      this.#ring = new HashRing(next.keys());
    } else {
      for (const key of leaving) this.#ring.remove(key);
      for (const key of joining) this.#ring.add(key);
    }
    this.#byKey = next;
    this.#workers = candidates;
  }

  /**
   * The ring owner of `key` among workers that are ready and not overloaded; the circuit
   * breaker is ignored, as SMG's ring walk (`is_healthy_and_eligible`). Call `sync` first.
   */
  lookupEligible(key: string): Worker | undefined {
    const owner = this.#ring.lookup(key, this.#acceptEligible);
    return owner === undefined ? undefined : this.#byKey.get(owner);
  }
}
