/**
 * Per-prefill-worker admission: at most `limit` client requests in flight on each prefill worker;
 * the rest wait in one bounded FIFO queue inside the gateway, unbound to any worker, and go to
 * whichever prefill worker frees first.
 *
 * Only the head of the queue places, and placing is one synchronous step (filter workers at the
 * limit, run the policy, reserve), so a stateful policy such as cache_aware never picks a worker
 * it then cannot reserve. The head wakes on a slot release, on any registry change, and on a
 * 1 s poll while anyone waits (a circuit going half-open is noticed only when read; it emits no
 * event). Scope: one gateway process; R replicas admit R x limit per worker.
 */
import { systemClock, type Clock } from '@switchyard/kit';
import type { GatewayConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { every } from '../util/every.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import { lease, type Lease } from '../util/lease.js';
import { WaitQueue } from './wait-queue.js';

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
   * Slots held per worker key. Each registration of a key gets its own counter object, and a
   * slot releases into the object it was taken from: a slot taken before a remove + re-add of
   * the same URL cannot decrement the new registration's count.
   */
  readonly #inflight = new Map<string, { n: number }>();
  readonly #opts: PrefillAdmissionOptions;
  readonly #clock: Clock;
  readonly #hooks: PrefillAdmissionHooks;
  readonly #queue: WaitQueue<PrefillSlot>;
  #registry: WorkerRegistry | undefined;
  #stopPoll: (() => void) | undefined;
  /** EWMA of how long a slot is held, for an honest Retry-After. */
  #holdMs = 1000;

  constructor(opts: PrefillAdmissionOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#hooks = opts.hooks ?? {};
    this.#queue = new WaitQueue({ clock: this.#clock, onSizeChange: (n) => this.#queued(n) });
  }

  inflight(worker: Worker): number {
    return this.#inflight.get(worker.key)?.n ?? 0;
  }

  get queued(): number {
    return this.#queue.size;
  }

  /** Wakes the head on every registry change; forgets a removed worker's count. Returns detach. */
  attach(registry: WorkerRegistry): () => void {
    this.#registry = registry;
    const wake = (): void => this.#queue.pump();
    const removed = (w: Worker): void => {
      // A removed worker's count is forgotten; slots still held release into nothing.
      this.#inflight.delete(w.key);
      this.#hooks.onWorkerGone?.(w.key);
      wake();
    };
    registry.on('added', wake);
    registry.on('replaced', wake);
    registry.on('health', wake);
    registry.on('removed', removed);
    return () => {
      registry.off('added', wake);
      registry.off('replaced', wake);
      registry.off('health', wake);
      registry.off('removed', removed);
    };
  }

  readonly #hasRoom = (w: Worker): boolean => this.inflight(w) < this.#opts.limit;

  /** Places now when nobody waits and a worker has room; otherwise queues (FIFO). */
  acquire(place: PlaceFn, signal: AbortSignal): Promise<PrefillSlot> {
    if (this.#queue.size === 0) {
      let worker: Worker | undefined;
      try {
        worker = place(this.#hasRoom);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      if (worker) {
        this.#hooks.onAdmitted?.(0);
        return Promise.resolve(this.#reserve(worker));
      }
    }
    const { queueSize, queueTimeoutMs } = this.#opts;
    if (this.#queue.size >= queueSize) {
      this.#hooks.onReject?.('queue_full');
      const msg = `Prefill admission queue is full (${queueSize} waiting)`;
      return Promise.reject(this.#reject('pd_prefill_queue_full', msg));
    }
    return this.#queue.enqueue({
      tryGrant: () => {
        const worker = place(this.#hasRoom);
        return worker && this.#reserve(worker);
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
      },
    });
  }

  /** Fails every waiter with the final `shutting_down` (wait-queue.ts) and stops polling. */
  close(): void {
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

  #reserve(worker: Worker): PrefillSlot {
    const key = worker.key;
    let count = this.#inflight.get(key);
    if (!count) {
      count = { n: 0 };
      this.#inflight.set(key, count);
    }
    count.n += 1;
    this.#hooks.onInflightChange?.(key, count.n);
    const taken = this.#clock.now();
    const held = count;
    const l = lease(() => {
      held.n -= 1;
      // A removed registration's series stays removed.
      if (this.#inflight.get(key) === held) this.#hooks.onInflightChange?.(key, held.n);
      this.#holdMs = 0.8 * this.#holdMs + 0.2 * (this.#clock.now() - taken);
      this.#queue.pump();
    });
    return Object.assign(l, { worker });
  }

  /** The queue gauge, and the poll that runs only while someone waits. */
  #queued(n: number): void {
    this.#hooks.onQueuedChange?.(n);
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
  deps: Pick<PrefillAdmissionOptions, 'clock' | 'hooks'> = {},
): PrefillAdmission | undefined {
  if (config.prefillMaxInflightRequestsPerWorker <= 0) return undefined;
  return new PrefillAdmission({
    limit: config.prefillMaxInflightRequestsPerWorker,
    queueSize: config.prefillQueueSize,
    queueTimeoutMs: config.prefillQueueTimeoutSecs * 1000,
    ...deps,
  });
}
