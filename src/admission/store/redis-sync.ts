/**
 * What this process owes Redis, and the passes that pay it (redis-store.ts runs them one at a
 * time, every leaseMs/3 and whenever the connection becomes ready):
 *
 * - renewAll: extends the lease of every ticket Redis counts, one script call per key, and
 *   finds those whose lease lapsed anyway (this process could not renew them in time).
 * - round: adopts every live ticket Redis may not count (fallback tickets, lapsed leases,
 *   takes that got no answer), then sends every give-back kept while Redis could not be told.
 *
 * Each ticket is changed only here and in the store's take and give-back, all on one thread:
 * an adopt in flight marks its tickets `adopting`, so a give-back meanwhile is reconciled when
 * the adopt answers rather than racing it.
 */
import type { Ledger, RedisTicket } from './redis-ledger.js';
import type { AdmissionScripts } from './redis-scripts.js';

export class LedgerSync {
  readonly #ledger: Ledger;
  readonly #scripts: AdmissionScripts;
  readonly #saw: (key: string, total: number) => void;

  constructor(
    ledger: Ledger,
    scripts: AdmissionScripts,
    saw: (key: string, total: number) => void,
  ) {
    this.#ledger = ledger;
    this.#scripts = scripts;
    this.#saw = saw;
  }

  async renewAll(): Promise<void> {
    const calls: Promise<void>[] = [];
    for (const key of this.#ledger.keys()) {
      const tickets = this.#ledger.live(key, (s) => s === 'yes');
      if (tickets.length === 0) continue;
      const call = this.#scripts.renew(
        key,
        tickets.map((t) => t.id),
      );
      calls.push(
        call.then(({ total, missing }) => {
          this.#saw(key, total);
          const lapsed = new Set(missing);
          // Lapsed while this process could not renew it, though its request still runs: Redis
          // has released it, so it must be adopted again to be counted.
          for (const t of tickets) if (lapsed.has(t.id) && t.remote === 'yes') t.remote = 'no';
        }),
      );
    }
    await settle(calls);
  }

  /** Adopts every live ticket Redis may not count, then sends every kept give-back. */
  async round(): Promise<void> {
    const adopts: Promise<void>[] = [];
    for (const key of [...this.#ledger.keys()]) {
      const tickets = this.#ledger.live(key, (s) => s !== 'yes');
      if (tickets.length > 0) adopts.push(this.#adopt(key, tickets));
    }
    await settle(adopts);
    await settle([...this.#ledger.pending].map((t) => this.#flush(t)));
  }

  async #adopt(key: string, tickets: RedisTicket[]): Promise<void> {
    const sent = tickets.map((t) => {
      t.adopting = true;
      if (t.remote === 'no') t.remote = 'maybe';
      return [t, t.units] as const;
    });
    try {
      const { total } = await this.#scripts.adopt(
        key,
        sent.map(([t, units]) => [t.id, units] as const),
      );
      this.#saw(key, total);
      for (const [t, units] of sent) {
        t.adopting = false;
        t.remote = 'yes';
        // Given back (in part or whole) while the adopt was in flight: tell Redis now.
        if (t.units < units) this.#ledger.pending.add(t);
      }
    } catch (err) {
      // Unknown whether it ran: the tickets stay 'maybe'. A live one is adopted again later; a
      // finished one is given back later, so Redis cannot keep it.
      for (const [t] of sent) {
        t.adopting = false;
        if (t.units === 0) this.#ledger.pending.add(t);
      }
      throw err;
    }
  }

  async #flush(ticket: RedisTicket): Promise<void> {
    const keep = ticket.units;
    const { total } = await this.#scripts.giveBack(ticket.key, ticket.id, keep);
    this.#saw(ticket.key, total);
    // Lowered again while this was in flight: it stays owed.
    if (ticket.units === keep) this.#ledger.pending.delete(ticket);
  }
}

/** Waits for every call, then fails with the first failure (so no state is left half-updated). */
async function settle(calls: Promise<void>[]): Promise<void> {
  const results = await Promise.allSettled(calls);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}
