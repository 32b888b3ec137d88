/**
 * The in-flight load of a candidate group's available workers, kept as the load changes: the
 * sum, and a heap ordered by SMG cache_aware's min-load key (load, processed requests,
 * registry position). A lease changes one worker's load by one, which costs one O(log n)
 * re-sift here instead of a scan of every worker per request.
 */
import { IndexedHeap } from '../util/indexed-heap.js';
import { lessLoaded } from './candidate-set.js';
import type { Worker } from './worker.js';

export class AvailableLoad {
  #total = 0;
  readonly #heap: IndexedHeap<Worker>;

  /** `position` is each worker's registry order within the group. */
  constructor(position: (w: Worker) => number) {
    this.#heap = new IndexedHeap((a, b) => lessLoaded(a, b, position));
  }

  get total(): number {
    return this.#total;
  }

  least(): Worker | undefined {
    return this.#heap.peek();
  }

  reset(available: readonly Worker[]): void {
    let total = 0;
    for (const w of available) total += w.load;
    this.#total = total;
    this.#heap.reset(available);
  }

  /** A lease on `worker` was taken (+1) or released (-1); ignored for workers not held here. */
  changed(worker: Worker, delta: number): void {
    if (!this.#heap.has(worker)) return;
    this.#total += delta;
    this.#heap.update(worker);
  }
}
