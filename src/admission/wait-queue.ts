/**
 * The one wait queue of admission: prefill slots, decode rooms and the gateway-wide limit are
 * grant policies over it. Strict FIFO and head-only: only the oldest waiter is ever offered a
 * grant, so a later small request never overtakes a waiting large one, and a waiter leaves on
 * its grant, its deadline, its client's abort, or a failure, whichever comes first. Whatever way
 * it leaves, its timer and abort listener are gone, and the queue offers the next head a grant.
 *
 * Deadlines never keep the process alive (`keepAlive: false`): a draining gateway exits while a
 * request still waits, and `close()` fails it at once anyway.
 */
import { systemClock, type Clock, type Timer } from '@switchyard/kit';
import { GatewayError } from '../errors/gateway-error.js';
import { BACKGROUND } from '../util/every.js';

/** Why a waiter left the queue. */
export type LeaveReason = 'granted' | 'timeout' | 'aborted' | 'failed';

export interface WaitRequest<T> {
  /**
   * Offered when this waiter is the head: returns the grant (already reserved), or undefined
   * to keep waiting. Synchronous, so the check and the reservation happen in one step. A throw
   * fails this waiter with that error and offers the next one.
   */
  tryGrant(): T | undefined;
  /** The client's signal: an abort takes the waiter out at once. */
  signal?: AbortSignal | undefined;
  /** How long it may wait, in ms on the queue's clock. */
  deadlineMs: number;
  /** The rejection when the deadline passes; called once, after the waiter left. */
  timeoutError(): Error;
  /** The rejection when the signal aborts; the signal's reason (or a plain Error) if absent. */
  abortError?(reason: unknown): Error;
  /** Called once when the waiter leaves, before its promise settles. */
  onLeave?(reason: LeaveReason, waitedMs: number): void;
}

export interface WaitQueueOptions {
  clock?: Clock | undefined;
  /** The number of waiters changed (a queue-depth gauge). */
  onSizeChange?: ((size: number) => void) | undefined;
}

interface Waiter<T> {
  readonly req: WaitRequest<T>;
  readonly enqueuedAt: number;
  resolve(grant: T): void;
  reject(err: unknown): void;
  timer: Timer | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The answer of `close()`: final, not retryable. A request refused because the gateway is
 * going away would only queue again on a retry, and the retry executor must not spin through
 * its backoff while the process drains.
 */
function shuttingDown(): GatewayError {
  return new GatewayError('shutting_down', 'gateway is shutting down', { retryable: false });
}

export class WaitQueue<T> {
  /** Insertion-ordered: the first entry is the head; removal from the middle is O(1). */
  readonly #waiters = new Set<Waiter<T>>();
  readonly #clock: Clock;
  readonly #onSizeChange: ((size: number) => void) | undefined;
  #closed = false;

  constructor(opts: WaitQueueOptions = {}) {
    this.#clock = opts.clock ?? systemClock;
    this.#onSizeChange = opts.onSizeChange;
  }

  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Queues a waiter behind every other. It is not offered a grant here: the caller tried its
   * fast path already, or calls `pump()`. Refused at once after `close()` or when the signal
   * has aborted.
   */
  enqueue(req: WaitRequest<T>): Promise<T> {
    if (this.#closed) return Promise.reject(shuttingDown());
    const signal = req.signal;
    if (signal?.aborted) return Promise.reject(abortErrorOf(req, signal.reason));
    return new Promise<T>((resolve, reject) => {
      const w: Waiter<T> = {
        req,
        enqueuedAt: this.#clock.now(),
        resolve,
        reject,
        timer: undefined,
        onAbort: undefined,
      };
      w.timer = this.#clock.setTimer(
        req.deadlineMs,
        () => {
          w.timer = undefined;
          if (!this.#leave(w, 'timeout')) return;
          reject(req.timeoutError());
          this.pump();
        },
        BACKGROUND,
      );
      if (signal) {
        w.onAbort = () => {
          if (!this.#leave(w, 'aborted')) return;
          reject(abortErrorOf(req, signal.reason));
          this.pump();
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.#waiters.add(w);
      this.#onSizeChange?.(this.#waiters.size);
    });
  }

  /** Offers the head a grant while heads accept; stops at the first head that must wait. */
  pump(): void {
    for (let head = this.#head(); head !== undefined; head = this.#head()) {
      let grant: T | undefined;
      try {
        grant = head.req.tryGrant();
      } catch (err) {
        this.#leave(head, 'failed');
        head.reject(err);
        continue;
      }
      if (grant === undefined) return;
      this.#leave(head, 'granted');
      head.resolve(grant);
    }
  }

  /** Rejects every waiter with `err`, oldest first. */
  failAll(err: Error): void {
    for (const w of [...this.#waiters]) {
      if (this.#leave(w, 'failed')) w.reject(err);
    }
  }

  /** Fails every waiter, and every later `enqueue`, with the final `shuttingDown()`. */
  close(): void {
    this.#closed = true;
    this.failAll(shuttingDown());
  }

  #head(): Waiter<T> | undefined {
    for (const w of this.#waiters) return w;
    return undefined;
  }

  /** Takes the waiter out and stops its timer and listener; false if it already left. */
  #leave(w: Waiter<T>, reason: LeaveReason): boolean {
    if (!this.#waiters.delete(w)) return false;
    this.#clock.clearTimer(w.timer);
    w.timer = undefined;
    if (w.onAbort) w.req.signal?.removeEventListener('abort', w.onAbort);
    this.#onSizeChange?.(this.#waiters.size);
    w.req.onLeave?.(reason, this.#clock.now() - w.enqueuedAt);
    return true;
  }
}

function abortErrorOf(req: WaitRequest<unknown>, reason: unknown): Error {
  if (req.abortError) return req.abortError(reason);
  return reason instanceof Error ? reason : new Error('client left the queue');
}
