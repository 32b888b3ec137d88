/**
 * Per-prefill-worker admission: at most `limit` client requests in flight on each prefill worker;
 * the rest wait in one bounded FIFO queue inside the gateway, unbound to any worker, and go to
 * whichever prefill worker frees first.
 *
 * Only the head of the queue places, and placing is one synchronous step (filter workers at the
 * limit, run the policy, reserve), so a stateful policy such as cache_aware never picks a worker
 * it then cannot reserve. The head wakes on a slot release, on any registry change, and on a
 * 1 s poll while anyone waits (a circuit going half-open is noticed only when read; it emits no
 * event). Slots are counted in the admission store (store/types.ts), so the limit holds across
 * every process sharing it; the queue, and its FIFO order, is per process.
 */
import { systemClock, type Clock } from '@switchyard/kit';
import type { GatewayConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { every } from '../util/every.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import { lease, type Lease } from '../util/lease.js';
import { WaitQueue } from './wait-queue.js';
import { AsyncGrant } from './store/async-grant.js';
import { InProcessStore } from './store/in-process-store.js';
import { StoreGate } from './store/store-gate.js';
import type { AdmissionStore, StoreTicket } from './store/types.js';

/** Plain callbacks the caller maps to metrics (server/metric-bindings.ts). */
export interface PrefillAdmissionHooks {
  /** A request got its slot after `waitSecs` in the queue (0 when it placed on arrival). */
  onAdmitted?(waitSecs: number): void;
  onReject?(reason: 'queue_full' | 'queue_timeout'): void;
  onInflightChange?(workerKey: string, inflight: number): void;
  /** The worker was removed: drop its series. */
  onWorkerGone?(workerKey: string): void;
  onQueuedChange?(queued: number): void;
}

export interface PrefillAdmissionOptions {
  limit: number;
  queueSize: number;
  queueTimeoutMs: number;
  pollMs?: number | undefined;
  clock?: Clock | undefined;
  hooks?: PrefillAdmissionHooks | undefined;
  /** Where slots are counted; this process's memory when absent. */
  store?: AdmissionStore | undefined;
}

/** The store key of a prefill worker's slots. */
export const prefillStoreKey = (workerKey: string): string => `prefill:${workerKey}`;

/** A slot the store granted on a worker, not yet handed to a request. */
interface Placed {
  readonly worker: Worker;
  readonly ticket: StoreTicket;
}

/**
 * One placement try. Given whether a worker still has room, returns the chosen worker or
 * undefined (wait). Throws when the request can never place (e.g. its pinned worker left): the
 * waiter is failed with that error and leaves the queue, so it cannot hold the head. Must be
 * synchronous: the reservation follows in the same tick.
 */
export type PlaceFn = (hasRoom: (w: Worker) => boolean) => Worker | undefined;

export interface PrefillSlot extends Lease {
  readonly worker: Worker;
}

export class PrefillAdmission {
  /**
   * Slots this process holds per worker key (the gauge; the limit is the store's). A slot taken
   * before a remove + re-add of the same URL still runs on that engine, so it still counts for
   * the new registration until it ends, as it does in the store, and frees once.
   */
  readonly #inflight = new Map<string, { n: number; removed: boolean }>();
  readonly #opts: PrefillAdmissionOptions;
  readonly #clock: Clock;
  readonly #hooks: PrefillAdmissionHooks;
  readonly #queue: WaitQueue<PrefillSlot>;
  readonly #gate: StoreGate;
  readonly #unsubscribe: () => void;
  #waiters = 0;
  #registry: WorkerRegistry | undefined;
  #stopPoll: (() => void) | undefined;
  /** EWMA of how long a slot is held, for an honest Retry-After. */
  #holdMs = 1000;

  constructor(opts: PrefillAdmissionOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#hooks = opts.hooks ?? {};
    this.#queue = new WaitQueue({ clock: this.#clock, onSizeChange: (n) => this.#queued(n) });
    const store = opts.store ?? new InProcessStore();
    this.#gate = new StoreGate(store, this.#clock, () => this.#queue.pump());
    // Slots freed by another process wake the head; an in-process store frees only through here.
    this.#unsubscribe = store.synchronous
      ? () => undefined
      : store.onFreed((key) => {
          if (key.startsWith('prefill:')) this.#queue.pump();
        });
  }

  inflight(worker: Worker): number {
    return this.#inflight.get(worker.key)?.n ?? 0;
  }

  get queued(): number {
    return this.#queue.size;
  }

  /** Wakes the head on every registry change; follows removal and re-adds. Returns detach. */
  attach(registry: WorkerRegistry): () => void {
    this.#registry = registry;
    const wake = (): void => this.#queue.pump();
    const added = (w: Worker): void => {
      const count = this.#inflight.get(w.key);
      if (count?.removed) {
        count.removed = false;
        this.#hooks.onInflightChange?.(w.key, count.n);
      }
      wake();
    };
    const removed = (w: Worker): void => {
      // Its series goes; slots still held keep counting (silently) until their requests end.
      const count = this.#inflight.get(w.key);
      if (count) count.removed = true;
      if (count?.n === 0) this.#inflight.delete(w.key);
      this.#hooks.onWorkerGone?.(w.key);
      wake();
    };
    registry.on('added', added);
    registry.on('replaced', wake);
    registry.on('health', wake);
    registry.on('removed', removed);
    return () => {
      registry.off('added', added);
      registry.off('replaced', wake);
      registry.off('health', wake);
      registry.off('removed', removed);
    };
  }

  /** Whether the store's view leaves the worker room (exact for the in-process store). */
  readonly #hasRoom = (w: Worker): boolean =>
    this.#gate.worthAsking(prefillStoreKey(w.key), 1, this.#opts.limit);

  /** Places now when nobody waits and a worker has room; otherwise queues (FIFO). */
  acquire(place: PlaceFn, signal: AbortSignal): Promise<PrefillSlot> {
    if (this.#queue.size === 0) {
      let placed: Placed | Promise<Placed | undefined> | undefined;
      try {
        placed = this.#gate.store.synchronous ? this.#placeNow(place) : this.#placeSoon(place);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      if (placed instanceof Promise) {
        return placed.then((p) =>
          p && this.#current(p) ? this.#admitted(p, signal) : this.#wait(place, signal),
        );
      }
      if (placed) return Promise.resolve(this.#admitted(placed, signal));
    }
    return this.#wait(place, signal);
  }

  /**
   * Whether an async grant's worker is still the registered one. A grant for a worker removed
   * (or replaced) while its take was in flight is given back: a slot on it would count for an
   * engine that left, and revive its gauge.
   */
  #current(placed: Placed): boolean {
    if (this.#registry === undefined || this.#registry.get(placed.worker.id) === placed.worker)
      return true;
    this.#gate.giveBack(placed.ticket, placed.ticket.units);
    return false;
  }

  /** One placement against an in-process store: the view is exact, so the take succeeds. */
  #placeNow(place: PlaceFn): Placed | undefined {
    const worker = place(this.#hasRoom);
    if (!worker) return undefined;
    const { ticket } = this.#gate.take(prefillStoreKey(worker.key), 1, this.#opts.limit) as {
      ticket: StoreTicket | undefined;
    };
    return ticket && { worker, ticket };
  }

  /**
   * Placement against an async store: a refusal updates the view, so the next try places
   * elsewhere; it ends when a take succeeds or the view leaves no worker with room.
   */
  async #placeSoon(place: PlaceFn): Promise<Placed | undefined> {
    for (;;) {
      const worker = place(this.#hasRoom);
      if (!worker) return undefined;
      const { ticket } = await this.#gate.take(prefillStoreKey(worker.key), 1, this.#opts.limit);
      if (ticket) return { worker, ticket };
    }
  }

  /** Arrival placement succeeded; a client that left during the round trip gives it back. */
  #admitted(placed: Placed, signal: AbortSignal): PrefillSlot {
    if (signal.aborted) {
      this.#gate.giveBack(placed.ticket, placed.ticket.units);
      throw signal.reason instanceof Error ? signal.reason : new Error('client left');
    }
    this.#hooks.onAdmitted?.(0);
    return this.#slotFrom(placed);
  }

  #wait(place: PlaceFn, signal: AbortSignal): Promise<PrefillSlot> {
    const { queueSize, queueTimeoutMs } = this.#opts;
    if (this.#queue.size >= queueSize) {
      this.#hooks.onReject?.('queue_full');
      const msg = `Prefill admission queue is full (${queueSize} waiting)`;
      return Promise.reject(this.#reject('pd_prefill_queue_full', msg));
    }
    // One placement at a time for the head: a take in flight keeps it waiting (async-grant.ts).
    const pending = new AsyncGrant<Placed>({
      attempt: () => {
        const worker = place(this.#hasRoom);
        if (!worker) return undefined;
        const answer = this.#gate.take(prefillStoreKey(worker.key), 1, this.#opts.limit);
        return Promise.resolve(answer).then(({ ticket }) => ticket && { worker, ticket });
      },
      pump: () => this.#queue.pump(),
      discard: ({ ticket }) => this.#gate.giveBack(ticket, ticket.units),
    });
    return this.#queue.enqueue({
      tryGrant: () => {
        if (this.#gate.store.synchronous) {
          const placed = this.#placeNow(place);
          return placed && this.#slotFrom(placed);
        }
        const placed = pending.tryGrant();
        // A worker removed while its take was in flight: the slot went back; place again.
        if (placed && !this.#current(placed)) {
          // Starts the next take (its answer comes on a later pump).
          const again = pending.tryGrant();
          return again && this.#current(again) ? this.#slotFrom(again) : undefined;
        }
        return placed && this.#slotFrom(placed);
      },
      signal,
      deadlineMs: queueTimeoutMs,
      timeoutError: () => {
        this.#hooks.onReject?.('queue_timeout');
        const msg = `No prefill slot within ${queueTimeoutMs / 1000} s`;
        return this.#reject('pd_prefill_queue_timeout', msg);
      },
      abortError: (reason) =>
        reason instanceof Error ? reason : new Error('client left the prefill admission queue'),
      onLeave: (reason, waitedMs) => {
        if (reason === 'granted') this.#hooks.onAdmitted?.(waitedMs / 1000);
        // Every way out: a grant still in flight when the waiter left goes back.
        pending.left();
      },
    });
  }

  /** Fails every waiter with the final `shutting_down` (wait-queue.ts) and stops polling. */
  close(): void {
    this.#unsubscribe();
    this.#gate.close();
    this.#queue.close();
  }

  /** Honest Retry-After: when, at the observed slot hold time, the queue ahead should clear. */
  #reject(code: 'pd_prefill_queue_full' | 'pd_prefill_queue_timeout', msg: string): GatewayError {
    const prefill = this.#registry?.ofType('prefill') ?? [];
    const workers = Math.max(1, prefill.filter((w) => w.isHealthy).length);
    const rounds = Math.ceil((this.#queue.size + 1) / (workers * this.#opts.limit));
    const secs = Math.max(1, Math.ceil((rounds * this.#holdMs) / 1000));
    return new GatewayError(code, msg, {
      headers: { 'retry-after': String(secs) },
      retryable: false,
    });
  }

  #slotFrom({ worker, ticket }: Placed): PrefillSlot {
    const key = worker.key;
    let count = this.#inflight.get(key);
    if (!count) {
      count = { n: 0, removed: false };
      this.#inflight.set(key, count);
    }
    count.n += 1;
    this.#hooks.onInflightChange?.(key, count.n);
    const taken = this.#clock.now();
    const held = count;
    const l = lease(() => {
      held.n -= 1;
      // A removed worker's series stays removed; its count goes when its last slot ends.
      if (!held.removed) this.#hooks.onInflightChange?.(key, held.n);
      else if (held.n === 0 && this.#inflight.get(key) === held) this.#inflight.delete(key);
      this.#holdMs = 0.8 * this.#holdMs + 0.2 * (this.#clock.now() - taken);
      this.#gate.giveBack(ticket, ticket.units);
      this.#queue.pump();
    });
    return Object.assign(l, { worker });
  }

  /** The queue gauge, and the poll that runs only while someone waits. */
  #queued(n: number): void {
    this.#hooks.onQueuedChange?.(n);
    this.#gate.waiters(n - this.#waiters);
    this.#waiters = n;
    if (n > 0) {
      this.#stopPoll ??= every(this.#clock, this.#opts.pollMs ?? 1000, () => this.#queue.pump());
    } else {
      this.#stopPoll?.();
      this.#stopPoll = undefined;
    }
  }
}

/** `--prefill-max-inflight-requests-per-worker` and its queue; undefined when it is off (0). */
export function prefillAdmissionFromConfig(
  config: GatewayConfig,
  deps: Pick<PrefillAdmissionOptions, 'clock' | 'hooks' | 'store'> = {},
): PrefillAdmission | undefined {
  if (config.prefillMaxInflightRequestsPerWorker <= 0) return undefined;
  return new PrefillAdmission({
    limit: config.prefillMaxInflightRequestsPerWorker,
    queueSize: config.prefillQueueSize,
    queueTimeoutMs: config.prefillQueueTimeoutSecs * 1000,
    ...deps,
  });
}
