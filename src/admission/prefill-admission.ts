/**
 * Per-prefill-worker admission: at most `limit` client requests in flight on each prefill worker;
 * the rest wait in one bounded FIFO queue inside the gateway, unbound to any worker, and go to
 * whichever prefill worker frees first.
 *
 * Only the head of the queue places, and placing is one synchronous step (filter workers at the
 * limit, run the policy, reserve), so a stateful policy such as cache_aware never picks a worker
 * it then cannot reserve. The head wakes on a slot release, on any registry change, and on a
 * 1 s poll (a circuit going half-open is noticed only when read; it emits no event).
 * Scope: one gateway process; R replicas admit R x limit per worker.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import { every } from '../util/every.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import { lease, type Lease } from './lease.js';

export interface PrefillAdmissionConfig {
  limit: number;
  queueSize: number;
  queueTimeoutMs: number;
  pollMs?: number;
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

interface Waiter {
  place: PlaceFn;
  resolve(slot: PrefillSlot): void;
  reject(err: unknown): void;
  /** Leaves the queue, stops the waiter's timer and listener. */
  cancel(): void;
  enqueuedAt: number;
  done: boolean;
}

export class PrefillAdmission {
  /**
   * Slots held per worker key. Each registration of a key gets its own counter object, and a
   * slot releases into the object it was taken from: a slot taken before a remove + re-add of
   * the same URL cannot decrement the new registration's count.
   */
  readonly #inflight = new Map<string, { n: number }>();
  readonly #queue: Waiter[] = [];
  #stopPoll: (() => void) | undefined;
  /** EWMA of how long a slot is held, for an honest Retry-After. */
  #holdMs = 1000;

  constructor(
    private readonly config: PrefillAdmissionConfig,
    private readonly registry: WorkerRegistry,
    private readonly metrics: GatewayMetrics,
    private readonly clock: Clock,
  ) {
    const wake = (): void => this.#pump();
    registry.on('added', wake);
    registry.on('replaced', wake);
    registry.on('health', wake);
    registry.on('removed', (w) => {
      // A removed worker's count is forgotten; slots still held release into nothing.
      this.#inflight.delete(w.key);
      metrics.pdPrefillAdmissionInflight.remove({ worker: w.key });
      wake();
    });
  }

  inflight(worker: Worker): number {
    return this.#inflight.get(worker.key)?.n ?? 0;
  }

  get queued(): number {
    return this.#queue.length;
  }

  readonly #hasRoom = (w: Worker): boolean => this.inflight(w) < this.config.limit;

  /** Places now when nobody waits and a worker has room; otherwise queues (FIFO). */
  acquire(place: PlaceFn, signal: AbortSignal): Promise<PrefillSlot> {
    if (this.#queue.length === 0) {
      let worker: Worker | undefined;
      try {
        worker = place(this.#hasRoom);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      if (worker) {
        this.metrics.pdPrefillAdmissionWait.observe(0);
        return Promise.resolve(this.#reserve(worker));
      }
    }
    if (this.#queue.length >= this.config.queueSize) {
      this.metrics.pdPrefillAdmissionRejections.inc({ reason: 'queue_full' });
      return Promise.reject(
        this.#reject(
          'pd_prefill_queue_full',
          `Prefill admission queue is full (${this.config.queueSize} waiting)`,
        ),
      );
    }
    return new Promise<PrefillSlot>((resolve, reject) => {
      const waiter: Waiter = {
        place,
        resolve,
        reject,
        cancel: () => finish(),
        enqueuedAt: this.clock.now(),
        done: false,
      };
      const finish = (): void => {
        waiter.done = true;
        this.clock.clearTimer(timer);
        signal.removeEventListener('abort', onAbort);
        const i = this.#queue.indexOf(waiter);
        if (i !== -1) this.#queue.splice(i, 1);
        this.#gauges();
      };
      const timer = this.clock.setTimer(this.config.queueTimeoutMs, () => {
        finish();
        this.metrics.pdPrefillAdmissionRejections.inc({ reason: 'queue_timeout' });
        reject(
          this.#reject(
            'pd_prefill_queue_timeout',
            `No prefill slot within ${this.config.queueTimeoutMs / 1000} s`,
          ),
        );
        this.#pump();
      });
      const onAbort = (): void => {
        finish();
        reject(
          signal.reason instanceof Error
            ? signal.reason
            : new Error('client left the prefill admission queue'),
        );
        this.#pump();
      };
      waiter.resolve = (slot) => {
        finish();
        this.metrics.pdPrefillAdmissionWait.observe((this.clock.now() - waiter.enqueuedAt) / 1000);
        resolve(slot);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.#gauges();
      this.#startPoll();
    });
  }

  close(): void {
    this.#stopPolling();
    for (const w of [...this.#queue]) {
      w.cancel();
      // Final: a retry during shutdown would only queue again.
      w.reject(new GatewayError('shutting_down', 'gateway is shutting down', { retryable: false }));
    }
    this.#queue.length = 0;
    this.#gauges();
  }

  /** Honest Retry-After: when, at the observed slot hold time, the queue ahead should clear. */
  #reject(
    code: 'pd_prefill_queue_full' | 'pd_prefill_queue_timeout',
    message: string,
  ): GatewayError {
    const workers = Math.max(1, this.registry.ofType('prefill').filter((w) => w.isHealthy).length);
    const rounds = Math.ceil((this.#queue.length + 1) / (workers * this.config.limit));
    const secs = Math.max(1, Math.ceil((rounds * this.#holdMs) / 1000));
    return new GatewayError(code, message, {
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
    this.metrics.pdPrefillAdmissionInflight.set({ worker: key }, count.n);
    const taken = this.clock.now();
    const held = count;
    const l = lease(() => {
      held.n -= 1;
      // A removed registration's series stays removed.
      if (this.#inflight.get(key) === held)
        this.metrics.pdPrefillAdmissionInflight.set({ worker: key }, held.n);
      this.#holdMs = 0.8 * this.#holdMs + 0.2 * (this.clock.now() - taken);
      this.#pump();
    });
    return Object.assign(l, { worker });
  }

  /** The head places while it can; the loop ends at the first head that must keep waiting. */
  #pump(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0];
      if (!head || head.done) {
        this.#queue.shift();
        continue;
      }
      let worker: Worker | undefined;
      try {
        worker = head.place(this.#hasRoom);
      } catch (err) {
        // This head can never place: fail it and let the next one try.
        head.cancel();
        head.reject(err);
        continue;
      }
      if (!worker) break;
      head.resolve(this.#reserve(worker));
    }
    this.#gauges();
    if (this.#queue.length === 0) this.#stopPolling();
  }

  #gauges(): void {
    this.metrics.pdPrefillAdmissionQueued.set(this.#queue.length);
  }

  #startPoll(): void {
    this.#stopPoll ??= every(this.clock, this.config.pollMs ?? 1000, () => this.#pump());
  }

  #stopPolling(): void {
    this.#stopPoll?.();
    this.#stopPoll = undefined;
  }
}
