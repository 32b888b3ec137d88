/**
 * The maintained candidate set of one (model, worker type): the registry marks it stale on the
 * events that can change it, and it recomputes on the next read, once. Membership (`all`) goes
 * stale on add, remove, replace and `model_id` changes; the `available` and `eligible` lists go
 * stale when a member's status, overload veto or circuit state changes. A selection between
 * events reads the same arrays with no scan; an event burst (registering a fleet) costs one
 * recomputation at the next read, not one per event.
 */
import { AvailableLoad } from './available-load.js';
import { sameWorkers, type CandidateSet } from './candidate-set.js';
import type { Worker } from './worker.js';

/** What a group reads from its registry. */
export interface GroupSource {
  /** Every registered worker, in registry order. */
  workers(): Iterable<Worker>;
  readonly reportVersion: number;
  /** Called with each `all` array the group publishes (the registry maps arrays to sets). */
  published(all: readonly Worker[], group: CandidateGroup): void;
}

export class CandidateGroup implements CandidateSet {
  #all: readonly Worker[] = [];
  #available: readonly Worker[] = [];
  #eligible: readonly Worker[] = [];
  #byKey = new Map<string, Worker>();
  #position = new Map<Worker, number>();
  #membersStale = true;
  #availabilityStale = true;
  /** Dropped from the index: it hears no more events, so every read recomputes. */
  #retired = false;
  /** Built on the first `availableLoad`/`leastLoaded` read: only load-aware policies pay for it. */
  #load: AvailableLoad | undefined;
  readonly #positionOf = (w: Worker): number => this.#position.get(w) ?? Infinity;

  constructor(
    private readonly source: GroupSource,
    /** Whether a registered worker is a candidate of this group (type and model). */
    private readonly includes: (w: Worker) => boolean,
  ) {}

  get all(): readonly Worker[] {
    this.#refresh();
    return this.#all;
  }

  get available(): readonly Worker[] {
    this.#refresh();
    return this.#available;
  }

  get eligible(): readonly Worker[] {
    this.#refresh();
    return this.#eligible;
  }

  get reportVersion(): number {
    return this.source.reportVersion;
  }

  byKey(key: string): Worker | undefined {
    this.#refresh();
    return this.#byKey.get(key);
  }

  availableLoad(): number {
    return this.#loadIndex().total;
  }

  leastLoaded(): Worker | undefined {
    return this.#loadIndex().least();
  }

  /** The index dropped this set; anyone still holding it gets correct, recomputed lists. */
  retire(): void {
    this.#retired = true;
    this.#load = undefined;
  }

  /** Registry event: a worker was added, removed or replaced, or its `model_id` changed. */
  membersChanged(): void {
    this.#membersStale = true;
  }

  /** Registry event: a worker's status, overload veto or circuit state changed. */
  workerChanged(worker: Worker): void {
    // A worker that is not a member yet arrives through a membership change instead.
    if (this.#position.has(worker)) this.#availabilityStale = true;
  }

  /** Registry event: a lease on `worker` was taken (+1) or released (-1). */
  loadChanged(worker: Worker, delta: number): void {
    // While the lists are stale the index is rebuilt from current loads on the next read.
    if (this.#load !== undefined && !this.#availabilityStale) this.#load.changed(worker, delta);
  }

  #loadIndex(): AvailableLoad {
    this.#refresh();
    if (this.#load === undefined || this.#retired) {
      this.#load = new AvailableLoad(this.#positionOf);
      this.#load.reset(this.#available);
    }
    return this.#load;
  }

  #refresh(): void {
    if (this.#retired) this.#membersStale = this.#availabilityStale = true;
    if (this.#membersStale) this.#rebuildMembers();
    if (this.#availabilityStale) this.#refilter();
  }

  #rebuildMembers(): void {
    this.#membersStale = false;
    const next: Worker[] = [];
    for (const w of this.source.workers()) if (this.includes(w)) next.push(w);
    // Same members keep the same array, so identity-keyed state (a policy's hash ring) holds.
    if (sameWorkers(this.#all, next)) return;
    this.#all = next;
    this.#byKey = new Map();
    this.#position = new Map();
    next.forEach((w, i) => {
      if (!this.#byKey.has(w.key)) this.#byKey.set(w.key, w);
      this.#position.set(w, i);
    });
    this.source.published(next, this);
    this.#availabilityStale = true;
  }

  #refilter(): void {
    // Cleared first: reading a circuit's state may half-open it, and that event must not be lost.
    this.#availabilityStale = false;
    const available: Worker[] = [];
    const eligible: Worker[] = [];
    for (const w of this.#all) {
      if (w.isAvailable()) available.push(w);
      if (w.isHealthyAndEligible()) eligible.push(w);
    }
    if (!sameWorkers(this.#available, available)) this.#available = available;
    if (!sameWorkers(this.#eligible, eligible)) this.#eligible = eligible;
    this.#load?.reset(this.#available);
  }
}
