/**
 * This process's own tickets of the Redis admission store: what it renews, what the fallback
 * counts while Redis is unreachable, and what it must tell Redis once it is back.
 *
 * Each ticket has one owner, the store, and one state that says what Redis may hold for it:
 *
 *   'yes'    Redis counts it (taken there, or adopted): renewed every lease/3.
 *   'no'     Redis does not know it (taken from the fallback, or its lease lapsed): adopted
 *            when Redis is reachable again.
 *   'maybe'  a take or adopt was sent and got no answer: Redis may or may not hold it, so it
 *            is adopted (if still held) or given back (if not) once Redis answers again.
 *
 * Because give-back and adopt tell Redis how many units to KEEP and only ever lower them (see
 * redis-scripts.ts), resending either is harmless; what the ledger guarantees is that a ticket
 * is never dropped while Redis may still count it.
 */
import type { StoreTicket } from './types.js';

export type RemoteState = 'yes' | 'no' | 'maybe';

export class RedisTicket implements StoreTicket {
  /** An adopt of this ticket is in flight: give-backs wait for its answer (the store reconciles). */
  adopting = false;

  constructor(
    /** The ledger that issued it: a store ignores tickets of another store. */
    readonly ledger: Ledger,
    readonly key: string,
    readonly id: string,
    public units: number,
    public remote: RemoteState,
  ) {}
}

interface KeyTickets {
  readonly live: Set<RedisTicket>;
  held: number;
}

export class Ledger {
  readonly #keys = new Map<string, KeyTickets>();
  /**
   * Tickets whose lowered units Redis has not been told yet (a give-back while down, or during
   * an adopt, or after a take that got no answer). Held by reference: the ticket's current
   * units are what is sent.
   */
  readonly pending = new Set<RedisTicket>();

  add(ticket: RedisTicket): void {
    let entry = this.#keys.get(ticket.key);
    if (!entry) this.#keys.set(ticket.key, (entry = { live: new Set(), held: 0 }));
    entry.live.add(ticket);
    entry.held += ticket.units;
  }

  /** Lowers the ticket by up to `units`; returns how many it gave up. A done ticket leaves. */
  release(ticket: RedisTicket, units: number): number {
    const n = Math.min(units, ticket.units);
    if (!(n > 0)) return 0;
    ticket.units -= n;
    const entry = this.#keys.get(ticket.key);
    if (!entry) return n;
    entry.held -= n;
    if (ticket.units === 0) entry.live.delete(ticket);
    // An idle key is forgotten so churned worker URLs do not accumulate.
    if (entry.live.size === 0) this.#keys.delete(ticket.key);
    return n;
  }

  /** Units this process holds on the key, shared or not: what the fallback counts. */
  held(key: string): number {
    return this.#keys.get(key)?.held ?? 0;
  }

  keys(): IterableIterator<string> {
    return this.#keys.keys();
  }

  /** Live tickets of the key in the given state and not being adopted. */
  live(key: string, remote: (state: RemoteState) => boolean): RedisTicket[] {
    const out: RedisTicket[] = [];
    for (const t of this.#keys.get(key)?.live ?? [])
      if (!t.adopting && remote(t.remote)) out.push(t);
    return out;
  }

  /** Whether anything must still reach Redis before the store can call itself up. */
  unsynced(): boolean {
    if (this.pending.size > 0) return true;
    for (const key of this.#keys.keys())
      if (this.live(key, (s) => s !== 'yes').length > 0) return true;
    return false;
  }

  get tickets(): number {
    let n = 0;
    for (const entry of this.#keys.values()) n += entry.live.size;
    return n;
  }
}

/**
 * The fallback's share of a limit: with R replicas known, floor(limit / R) but at least 1 (a
 * request must be able to run); unknown, the full limit, which R replicas may over-admit R-fold.
 */
export function fallbackLimit(limit: number, replicas: number | undefined): number {
  if (replicas === undefined || replicas <= 1) return limit;
  return Math.max(1, Math.floor(limit / replicas));
}
