/**
 * What both admission controllers need from a store beyond take and give-back: the local view
 * that spares a waiter a round trip it already knows would be refused, and the poll that wakes
 * waiters of an async store when no wake-up came (a lost pub/sub message, a lease that lapsed in
 * a crashed replica). The in-process store needs neither: its view is exact and its releases
 * wake waiters directly.
 *
 * A refusal is the strongest hint: after one, the key is not asked again until units free on it
 * (a wake-up from the store, a give-back here) or the poll interval passes. Without this a store
 * whose limit is not the caller's (Redis in fallback admits a share of the window) would refuse
 * at once, over and over, and spin the event loop.
 */
import type { Clock } from '@switchyard/kit';
import { every } from '../../util/every.js';
import { STORE_POLL_MS, type AdmissionStore, type StoreTicket, type TakeResult } from './types.js';

export class StoreGate {
  readonly store: AdmissionStore;
  readonly #clock: Clock;
  readonly #wake: () => void;
  /** When each key was last asked; a view older than the poll interval is not trusted. */
  readonly #lastAsked = new Map<string, number>();
  /** When each key last refused a take, until units free on it. */
  readonly #refusedAt = new Map<string, number>();
  readonly #unsubscribe: () => void;
  #waiting = 0;
  #stopPoll: (() => void) | undefined;

  /**
   * `wake` re-offers grants to every queue head; called by the poll. Construct the gate before
   * the controller subscribes to `onFreed`, so a wake-up clears the refusal before it pumps.
   */
  constructor(store: AdmissionStore, clock: Clock, wake: () => void) {
    this.store = store;
    this.#clock = clock;
    this.#wake = wake;
    this.#unsubscribe = store.synchronous
      ? () => undefined
      : store.onFreed((key) => this.#refusedAt.delete(key));
  }

  /**
   * False when asking now would be refused as far as this process can tell: the view is exact
   * (in-process) and says no, or the key refused recently and nothing freed since, or the view
   * says no and is fresh. The waiter then waits for a wake-up or the poll.
   */
  worthAsking(key: string, units: number, limit: number): boolean {
    if (this.store.synchronous) return this.store.seen(key) + units <= limit;
    if (this.#recent(this.#refusedAt.get(key))) return false;
    if (this.store.seen(key) + units <= limit) return true;
    return !this.#recent(this.#lastAsked.get(key));
  }

  take(key: string, units: number, limit: number): TakeResult | Promise<TakeResult> {
    if (this.store.synchronous) return this.store.tryTake(key, units, limit);
    this.#lastAsked.set(key, this.#clock.now());
    return Promise.resolve(this.store.tryTake(key, units, limit)).then((result) => {
      if (result.ticket === undefined) this.#refusedAt.set(key, this.#clock.now());
      return result;
    });
  }

  /** Gives units back; the key is worth asking again at once. */
  giveBack(ticket: StoreTicket, units: number): void {
    this.#refusedAt.delete(ticket.key);
    this.store.giveBack(ticket, units);
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
      // What is older than the poll interval means nothing any more: forget it, so churned
      // keys do not accumulate (what is younger still spares the next arrival a round trip).
      this.#forgetStale(this.#lastAsked);
      this.#forgetStale(this.#refusedAt);
    }
  }

  close(): void {
    this.#unsubscribe();
    this.#stopPoll?.();
    this.#stopPoll = undefined;
  }

  #forgetStale(times: Map<string, number>): void {
    for (const [key, at] of times) if (!this.#recent(at)) times.delete(key);
  }

  #recent(at: number | undefined): boolean {
    return at !== undefined && this.#clock.now() - at < STORE_POLL_MS;
  }
}
