/**
 * The candidates of one selection, as a policy sees them (`Policy.select`): every worker of the
 * request's type and model in registry order, and the two subsets the policies choose among.
 * The registry maintains one set per (model, worker type) and updates it on worker events
 * (candidate-group.ts), so a selection scans nothing; `candidateSet(workers)` computes one from
 * a plain list, for callers that narrow the candidates first (PD prefill admission keeps the
 * workers with a free slot) and for tests. A published array is never mutated: a change
 * publishes a new array, so a caller may keep one and compare identities.
 */
import type { Worker } from './worker.js';

export interface CandidateSet {
  /** Every candidate in registry order; `x-smg-target-worker` is an index into this list. */
  readonly all: readonly Worker[];
  /** The candidates for which `isAvailable()` holds: ready, circuit allows, not overloaded. */
  readonly available: readonly Worker[];
  /** The candidates for which `isHealthyAndEligible()` holds (the circuit breaker is ignored). */
  readonly eligible: readonly Worker[];
  /**
   * Changes whenever some worker's engine load report changes. Together with the identity of
   * `available`, a key under which a policy may cache a value computed from the reports.
   */
  readonly reportVersion: number;
  /** The candidate with this key (URL, or `url@rank` for a DP-aware worker). */
  byKey(key: string): Worker | undefined;
  /** Sum of the in-flight load over `available`. */
  availableLoad(): number;
  /**
   * The available worker with the least in-flight load, then the fewest processed requests,
   * then the earliest in registry order (SMG cache_aware's min-load key); undefined if none.
   */
  leastLoaded(): Worker | undefined;
}

/** A set computed from `workers` now, in O(n): later worker changes do not reach it. */
export function candidateSet(workers: readonly Worker[]): CandidateSet {
  return new ListCandidateSet(workers);
}

/** True when both lists hold the same workers in the same order. */
export function sameWorkers(a: readonly Worker[], b: readonly Worker[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The min-load order of `leastLoaded`; `position` is the registry order. */
export function lessLoaded(a: Worker, b: Worker, position: (w: Worker) => number): boolean {
  if (a.load !== b.load) return a.load < b.load;
  if (a.processedRequests !== b.processedRequests) return a.processedRequests < b.processedRequests;
  return position(a) < position(b);
}

const samePosition = (): number => 0;

class ListCandidateSet implements CandidateSet {
  readonly all: readonly Worker[];
  readonly available: readonly Worker[];
  readonly eligible: readonly Worker[];
  /** Each set has fresh arrays, so any constant keeps caches keyed on `available` correct. */
  readonly reportVersion = 0;
  #byKey: Map<string, Worker> | undefined;

  constructor(workers: readonly Worker[]) {
    this.all = workers.slice();
    this.available = workers.filter((w) => w.isAvailable());
    this.eligible = workers.filter((w) => w.isHealthyAndEligible());
  }

  byKey(key: string): Worker | undefined {
    if (this.#byKey === undefined) {
      this.#byKey = new Map();
      for (const w of this.all) if (!this.#byKey.has(w.key)) this.#byKey.set(w.key, w);
    }
    return this.#byKey.get(key);
  }

  availableLoad(): number {
    let total = 0;
    for (const w of this.available) total += w.load;
    return total;
  }

  leastLoaded(): Worker | undefined {
    // A full tie keeps the earlier worker (strict comparison), so positions need not be known.
    let best: Worker | undefined;
    for (const w of this.available)
      if (best === undefined || lessLoaded(w, best, samePosition)) best = w;
    return best;
  }
}
