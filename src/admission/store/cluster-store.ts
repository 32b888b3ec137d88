/**
 * The store of a gateway process run by `launch --workers N`: every take and give-back goes over
 * IPC to the cluster primary (admission-primary.ts), which holds the totals for all N processes.
 * A take costs one IPC round trip (tens of microseconds); give-backs are fire and forget, since
 * the channel is ordered and reliable while it is open.
 *
 * When the channel closes the primary is gone. Node's cluster module then exits the process at
 * once (an unexpected disconnect), and rightly: in round-robin scheduling the primary owns the
 * listening sockets, so no new connection could reach this process anyway. For the moment in
 * between, or a channel that closes without the process exiting (an embedder's), the store
 * reports down and answers from this process's own limits, as the contract asks.
 */
import { InProcessStore } from './in-process-store.js';
import { admissionToWorker, type AdmissionToPrimary } from './cluster-protocol.js';
import type { AdmissionStore, StoreTicket, TakeResult } from './types.js';

/**
 * Set by the cluster primary in each gateway process it forks: the process's slot, 0..N-1. Its
 * presence is what makes a process a cluster gateway process (not merely any cluster worker).
 */
export const CLUSTER_SLOT_ENV = 'SWITCHYARD_CLUSTER_SLOT';

/** A gateway process's end of the channel to the primary (`process` itself; a fake in tests). */
export interface PrimaryChannel {
  readonly connected: boolean;
  send(msg: AdmissionToPrimary): void;
  /** Returns the unsubscribe function. */
  onMessage(listener: (msg: unknown) => void): () => void;
  /** The channel closed (the primary exited). Returns the unsubscribe function. */
  onClose(listener: () => void): () => void;
}

/**
 * The IPC channel of a process forked with one (by `cluster.fork`). A send that fails counts as
 * the channel closing: IPC sends fail only on a closed channel, and a take whose message never
 * left would otherwise wait for an answer that cannot come.
 */
export function processChannel(proc: NodeJS.Process = process): PrimaryChannel {
  const closed = new Set<() => void>();
  const failed = (): void => {
    for (const listener of [...closed]) listener();
  };
  return {
    get connected() {
      return proc.connected;
    },
    send(msg) {
      if (!proc.connected || proc.send === undefined) {
        failed();
        return;
      }
      // With a callback a failed send is reported there, not as an unhandled 'error' event.
      proc.send(msg, undefined, undefined, (err: Error | null) => {
        if (err) failed();
      });
    },
    onMessage(listener) {
      proc.on('message', listener);
      return () => proc.off('message', listener);
    },
    onClose(listener) {
      proc.on('disconnect', listener);
      closed.add(listener);
      return () => {
        proc.off('disconnect', listener);
        closed.delete(listener);
      };
    },
  };
}

class ClusterTicket implements StoreTicket {
  constructor(
    readonly key: string,
    public units: number,
    /** The primary's id for it. */
    readonly id: number,
  ) {}
}

interface Pending {
  readonly key: string;
  readonly units: number;
  readonly limit: number;
  readonly resolve: (result: TakeResult) => void;
}

/** Shared by every store of the process: two stores on one channel never reuse a request id. */
let nextRequestId = 1;

export class ClusterStore implements AdmissionStore {
  readonly kind = 'cluster' as const;
  readonly synchronous = false;
  readonly #channel: PrimaryChannel;
  readonly #pending = new Map<number, Pending>();
  readonly #seen = new Map<string, number>();
  readonly #freed = new Set<(key: string) => void>();
  readonly #upListeners = new Set<(up: boolean) => void>();
  readonly #unsubscribe: (() => void)[];
  /** Takes while the primary is gone: this process's own limits. */
  readonly #fallback = new InProcessStore();
  #up: boolean;
  #closed = false;

  constructor(channel: PrimaryChannel) {
    this.#channel = channel;
    this.#up = channel.connected;
    this.#unsubscribe = [
      channel.onMessage((msg) => this.#onMessage(msg)),
      channel.onClose(() => this.#onClose()),
      this.#fallback.onFreed((key) => this.#emitFreed(key)),
    ];
  }

  get up(): boolean {
    return this.#up;
  }

  tryTake(key: string, units: number, limit: number): TakeResult | Promise<TakeResult> {
    if (this.#closed) return { ticket: undefined, total: this.seen(key) };
    if (!this.#up) return this.#fallback.tryTake(key, units, limit);
    const id = nextRequestId++;
    return new Promise((resolve) => {
      this.#pending.set(id, { key, units, limit, resolve });
      this.#channel.send({ t: 'sy-adm-take', id, key, units, limit });
    });
  }

  giveBack(ticket: StoreTicket, units: number): void {
    if (!(ticket instanceof ClusterTicket)) {
      // A ticket of the fallback, taken while the primary was gone.
      this.#fallback.giveBack(ticket, units);
      return;
    }
    const n = Math.min(units, ticket.units);
    if (!(n > 0)) return;
    ticket.units -= n;
    // Once the channel is closed the primary, and the units it held, are gone: nothing to return.
    if (this.#up) this.#channel.send({ t: 'sy-adm-give', ticket: ticket.id, units: n });
  }

  seen(key: string): number {
    return this.#up ? (this.#seen.get(key) ?? 0) : this.#fallback.seen(key);
  }

  onFreed(listener: (key: string) => void): () => void {
    this.#freed.add(listener);
    return () => this.#freed.delete(listener);
  }

  onUpChange(listener: (up: boolean) => void): () => void {
    this.#upListeners.add(listener);
    return () => this.#upListeners.delete(listener);
  }

  /** Stops listening on the channel; takes still waiting for an answer are answered refused. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    for (const pending of this.#pending.values())
      pending.resolve({ ticket: undefined, total: this.seen(pending.key) });
    this.#pending.clear();
    return Promise.resolve();
  }

  #onMessage(msg: unknown): void {
    const parsed = admissionToWorker(msg);
    if (parsed === undefined) return;
    if (parsed.t === 'sy-adm-freed') {
      this.#setSeen(parsed.key, parsed.total);
      this.#emitFreed(parsed.key);
      return;
    }
    const pending = this.#pending.get(parsed.id);
    // Another store of this process asked; it answers its own.
    if (pending === undefined) return;
    this.#pending.delete(parsed.id);
    this.#setSeen(pending.key, parsed.total);
    pending.resolve({
      ticket:
        parsed.ticket === undefined
          ? undefined
          : new ClusterTicket(pending.key, pending.units, parsed.ticket),
      total: parsed.total,
    });
  }

  #onClose(): void {
    if (!this.#up) return;
    this.#up = false;
    // The units this process held at the primary are gone with it; what it sees is now its own.
    this.#seen.clear();
    for (const listener of this.#upListeners) listener(false);
    // Takes that were on the way are answered by the fallback, as later ones are.
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.resolve(this.#fallback.tryTake(p.key, p.units, p.limit));
  }

  #setSeen(key: string, total: number): void {
    // An idle key is forgotten so churned worker URLs do not accumulate.
    if (total > 0) this.#seen.set(key, total);
    else this.#seen.delete(key);
  }

  #emitFreed(key: string): void {
    for (const listener of this.#freed) listener(key);
  }
}

/**
 * The store a gateway process forked by `launch --workers N` must use, or undefined in any other
 * process. `admission/store/from-config.ts` calls it when `--admission-store` is not set (with
 * Redis the processes share Redis instead and the primary holds nothing). Each call makes a
 * new store on the process's channel.
 */
export function clusterStoreIfWorker(proc: NodeJS.Process = process): AdmissionStore | undefined {
  if (proc.env[CLUSTER_SLOT_ENV] === undefined || proc.send === undefined) return undefined;
  return new ClusterStore(processChannel(proc));
}
