/**
 * The hash ring of one policy's candidate set (SMG keeps one ring per model in the registry and
 * updates it on membership change, smg-core.md §4.1 and §4.7). Candidates arrive as a fresh
 * array on every request, so the set is compared by worker identity (O(n) pointer compares) and
 * the ring is only touched when membership changed: incrementally for a few changes, rebuilt
 * for many. Ring members are worker keys (the URL, `url@rank` for a DP-aware worker, so ranks
 * sharing one URL still get distinct ring positions).
 */
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

  /** Brings the ring in line with `candidates`. */
  sync(candidates: readonly Worker[]): void {
    if (sameWorkers(this.#workers, candidates)) return;
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
    this.#workers = candidates.slice();
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

function sameWorkers(a: readonly Worker[], b: readonly Worker[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
