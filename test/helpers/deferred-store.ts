/**
 * An async admission store for controller tests: one in-process store shared by several
 * "processes", each seeing it through its own DeferredStore whose answers arrive only when the
 * test calls `answer()`, so a test decides what happens while a take is in flight. The real
 * async stores (cluster IPC, Redis) have their own integration tests.
 */
import { InProcessStore } from '../../src/admission/store/in-process-store.js';
import type { AdmissionStore, StoreTicket, TakeResult } from '../../src/admission/store/types.js';

export class SharedCounts {
  readonly store = new InProcessStore();
  readonly #views = new Set<DeferredStore>();

  /**
   * A view for one process; `wakeUps: false` drops its wake-ups (a lost pub/sub message), `cap`
   * refuses past that many units whatever limit the caller names (a Redis store in fallback).
   */
  view(opts: { wakeUps?: boolean; cap?: number } = {}): DeferredStore {
    const view = new DeferredStore(this, opts.wakeUps ?? true, opts.cap);
    this.#views.add(view);
    return view;
  }

  /** Every view hears of freed units, as Redis pub/sub or the cluster broadcast tells all. */
  freed(key: string): void {
    for (const view of this.#views) view.notify(key);
  }

  total(key: string): number {
    return this.store.seen(key);
  }
}

export class DeferredStore implements AdmissionStore {
  readonly kind = 'redis' as const;
  readonly synchronous = false;
  readonly up = true;
  readonly #shared: SharedCounts;
  readonly #wakeUps: boolean;
  readonly #cap: number | undefined;
  readonly #seen = new Map<string, number>();
  readonly #freed = new Set<(key: string) => void>();
  readonly #pending: (() => void)[] = [];
  /** Round trips asked so far. */
  asked = 0;

  constructor(shared: SharedCounts, wakeUps: boolean, cap: number | undefined) {
    this.#shared = shared;
    this.#wakeUps = wakeUps;
    this.#cap = cap;
  }

  /** Takes in flight, not yet answered. */
  get inFlight(): number {
    return this.#pending.length;
  }

  tryTake(key: string, units: number, limit: number): Promise<TakeResult> {
    this.asked += 1;
    return new Promise((resolve) => {
      this.#pending.push(() => {
        const result = this.#shared.store.tryTake(key, units, Math.min(limit, this.#cap ?? limit));
        this.#seen.set(key, result.total);
        resolve(result);
      });
    });
  }

  /** Answers every take in flight, in the order asked (the store decides at answer time). */
  answer(): void {
    for (const run of this.#pending.splice(0)) run();
  }

  giveBack(ticket: StoreTicket, units: number): void {
    this.#shared.store.giveBack(ticket, units);
    this.#shared.freed(ticket.key);
  }

  notify(key: string): void {
    this.#seen.set(key, this.#shared.total(key));
    if (!this.#wakeUps) return;
    for (const listener of this.#freed) listener(key);
  }

  seen(key: string): number {
    return this.#seen.get(key) ?? 0;
  }

  onFreed(listener: (key: string) => void): () => void {
    this.#freed.add(listener);
    return () => this.#freed.delete(listener);
  }

  onUpChange(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
