/**
 * The store of one gateway process: totals in a Map, answered synchronously. With it the
 * controllers behave exactly as before stores existed. The cluster primary holds its state in one
 * of these too.
 */
import type { AdmissionStore, StoreTicket, TakeResult } from './types.js';

class LocalTicket implements StoreTicket {
  constructor(
    readonly key: string,
    public units: number,
  ) {}
}

export class InProcessStore implements AdmissionStore {
  readonly kind = 'in-process' as const;
  readonly synchronous = true;
  readonly up = true;
  readonly #totals = new Map<string, number>();
  readonly #freed = new Set<(key: string) => void>();

  tryTake(key: string, units: number, limit: number): TakeResult {
    const total = this.#totals.get(key) ?? 0;
    if (total + units > limit) return { ticket: undefined, total };
    this.#totals.set(key, total + units);
    return { ticket: new LocalTicket(key, units), total: total + units };
  }

  giveBack(ticket: StoreTicket, units: number): void {
    if (!(ticket instanceof LocalTicket)) return;
    const n = Math.min(units, ticket.units);
    if (!(n > 0)) return;
    ticket.units -= n;
    const left = (this.#totals.get(ticket.key) ?? 0) - n;
    // An idle key is forgotten so churned worker URLs do not accumulate.
    if (left > 0) this.#totals.set(ticket.key, left);
    else this.#totals.delete(ticket.key);
    for (const listener of this.#freed) listener(ticket.key);
  }

  seen(key: string): number {
    return this.#totals.get(key) ?? 0;
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
