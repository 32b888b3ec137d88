/**
 * Where admission counts live. Decode claims and prefill slots are units of a pool named by a key
 * (`decode:<worker key>`, `prefill:<worker key>`) with a limit (the decode window, the prefill
 * limit). The controllers (decode-admission.ts, prefill-admission.ts) keep their FIFO queues in the
 * process and ask the store only whether units fit; the store is what every process sharing the
 * engines agrees on: this process's memory, the primary process of `launch --workers N`, or Redis.
 */

/** Units of one pool held by one request, given back through the store that issued it. */
export interface StoreTicket {
  readonly key: string;
  /** Units still held; the store lowers it on `giveBack`. */
  readonly units: number;
}

export interface TakeResult {
  /** The ticket when the units fitted under the limit; undefined when they did not. */
  readonly ticket: StoreTicket | undefined;
  /**
   * Units held on the key by every process sharing the store, as the store saw it when it
   * answered (after this take, when it succeeded). Feeds `seen`.
   */
  readonly total: number;
}

export type StoreKind = 'in-process' | 'cluster' | 'redis';

export interface AdmissionStore {
  readonly kind: StoreKind;
  /**
   * True when `tryTake` always answers synchronously (the in-process store): the controllers then
   * check and take in one step with no await, as before stores existed.
   */
  readonly synchronous: boolean;
  /**
   * False while the shared state is unreachable: the store then answers from this process's own
   * limits (the fallback) and reports `smg_admission_store_up 0`.
   */
  readonly up: boolean;
  /**
   * Takes `units` of `key` if the key's total stays within `limit`, atomically with respect to
   * every process sharing the store. Never rejects: a store that cannot reach its shared state
   * answers from its fallback.
   */
  tryTake(key: string, units: number, limit: number): TakeResult | Promise<TakeResult>;
  /**
   * Gives back min(units, ticket.units) of the ticket; the ticket is done when none are left.
   * Never throws, and returns each unit at most once: a store that cannot reach its shared
   * state keeps the give-back for when it can, or lets the claim's lease lapse.
   */
  giveBack(ticket: StoreTicket, units: number): void;
  /**
   * The last total this process saw for the key (0 if never): a hint that lets a waiter that
   * cannot fit wait without a round trip. The decision is always `tryTake`'s.
   */
  seen(key: string): number;
  /**
   * Called when units of a key may have freed anywhere (a give-back in this or another
   * process, a lapsed lease, the store coming back): waiters on the key should try again.
   * Returns the unsubscribe function.
   */
  onFreed(listener: (key: string) => void): () => void;
  /** Called when `up` changes. Returns the unsubscribe function. */
  onUpChange(listener: (up: boolean) => void): () => void;
  /** Stops timers and connections. Held tickets are not given back (their requests may still run). */
  close(): Promise<void>;
}

/**
 * How often a waiter that an async store refused tries again without having been woken: covers
 * lost wake-ups (Redis pub/sub is fire and forget) and leases that lapsed without a give-back.
 */
export const STORE_POLL_MS = 250;
