/**
 * What both admission controllers need from a store beyond take and give-back: the local view
 * that spares a waiter a round trip it already knows would be refused, and the poll that wakes
 * waiters of an async store when no wake-up came (a lost pub/sub message, a lease that lapsed in
 * a crashed replica). The in-process store needs neither: its releases wake waiters directly.
 */
import type { Clock } from '@switchyard/kit';
import { every } from '../../util/every.js';
import { STORE_POLL_MS, type AdmissionStore, type TakeResult } from './types.js';

export class StoreGate {
  readonly store: AdmissionStore;
  readonly #clock: Clock;
  readonly #wake: () => void;
  /** When each key was last asked; a view older than the poll interval is not trusted. */
  readonly #lastAsked = new Map<string, number>();
  #waiting = 0;
  #stopPoll: (() => void) | undefined;

  /** `wake` re-offers grants to every queue head; called by the poll. */
  constructor(store: AdmissionStore, clock: Clock, wake: () => void) {
    this.store = store;
    this.#clock = clock;
    this.#wake = wake;
  }

  /**
   * False when the local view already knows `units` cannot fit and it is fresh: the waiter then
   * waits for a wake-up instead of asking. Always true for the in-process store (exact view).
   */
  worthAsking(key: string, units: number, limit: number): boolean {
    if (this.store.seen(key) + units <= limit) return true;
    if (this.store.synchronous) return false;
    const asked = this.#lastAsked.get(key);
    return asked === undefined || this.#clock.now() - asked >= STORE_POLL_MS;
  }

  take(key: string, units: number, limit: number): TakeResult | Promise<TakeResult> {
    if (!this.store.synchronous) this.#lastAsked.set(key, this.#clock.now());
    return this.store.tryTake(key, units, limit);
  }

  /** A waiter joined (+1) or left (-1) a queue; the poll runs while any waits on an async store. */
  waiters(delta: number): void {
    this.#waiting += delta;
    if (this.store.synchronous) return;
    if (this.#waiting > 0) {
      this.#stopPoll ??= every(this.#clock, STORE_POLL_MS, this.#wake);
    } else {
      this.#stopPoll?.();
      this.#stopPoll = undefined;
      // Keys nobody waits on are not worth remembering.
      this.#lastAsked.clear();
    }
  }

  close(): void {
    this.#stopPoll?.();
    this.#stopPoll = undefined;
  }
}
