/**
 * Decode admission: never post more bootstrap rooms to a decode worker than its running window can
 * take. A burst wider than the window otherwise lets prefill rooms expire at their bootstrap
 * deadline while the decode has not reached them.
 *
 * A request claims rooms before any leg is sent; the claim is a lease released when the decode
 * response has been relayed, or on error, client disconnect or retry. Check and claim run with
 * no `await` between them, so two racers for the last room cannot both win. Rules, each fixing
 * a flaw of the decode admission proposed for SMG in PR #2466 (a wide claim starved by
 * single-room ones, a batch wider than the window refused for good, a non-retryable shed):
 *
 * - FIFO per worker, strict: a claim is granted on arrival only when nobody waits for that
 *   worker and its rooms are free; otherwise it queues. Only the head of the queue is ever
 *   granted, so rooms freed while a wide request waits are held for it and a stream of
 *   single-room requests behind it cannot starve it. The price is that a few rooms may idle
 *   until the head's rooms are all free, bounded by the longest request in flight.
 * - Pacing: a request for k rooms is granted min(k, window) rooms (all at once, never part),
 *   and sends at most `granted` sub-requests at a time. A plan wider than the window therefore
 *   completes instead of being refused forever.
 * - Waiting is woken by releases and registry events, never by polling, and is bounded by a
 *   WaitBudget shared by all attempts of one client request. When it runs out the request is
 *   shed with a retryable 503 so the retry executor re-selects another pair.
 *
 * Scope: claims are counted per gateway process. R replicas in front of one decode worker may
 * together post up to R x window rooms, and traffic sent to the engine directly is not seen at all;
 * the window is an estimate. Run one replica per decode pool, or set the window label to window / R
 * on each replica, until claims are shared through a store.
 */
import type { EventEmitter } from 'node:events';
import type { GatewayConfig } from '../config/schema.js';
import { systemClock, type Clock } from '@switchyard/kit';
import type { RegistryEvents } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import {
  WaitBudget,
  windowOf,
  windowShed,
  workerGoneShed,
  type ShedReason,
} from './decode-window.js';
import { RoomClaim, ungated, type DecodeClaim } from './decode-claim.js';
import { WaitQueue } from './wait-queue.js';

export { WaitBudget, windowOf, retryAfterSecs, type ShedReason } from './decode-window.js';
export type { DecodeClaim } from './decode-claim.js';

export interface ClaimOptions {
  /** The client request's budget, shared by every attempt; a fresh full one if absent. */
  budget?: WaitBudget | undefined;
  /** Client disconnect: the waiter leaves the queue at once, rejected with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** Plain callbacks the caller maps to metrics; a decode-window shed is not an overload shed. */
export interface DecodeAdmissionHooks {
  /** A request had to queue (smg_pd_admission_waits_total). */
  onWait?(workerKey: string): void;
  /** A request was refused with a retryable shed (smg_pd_admission_sheds_total). */
  onShed?(workerKey: string, reason: ShedReason): void;
  /** Claimed rooms on a worker changed (the claimed-rooms gauge). */
  onClaimedChange?(workerKey: string, claimed: number): void;
  /** The worker was removed: drop its gauge series. No onClaimedChange follows until re-added. */
  onWorkerGone?(workerKey: string): void;
}

export interface DecodeAdmissionOptions {
  /** `--pd-admission-wait-secs`: the initial value of every new WaitBudget. */
  waitSecs: number;
  /** Reads waits and arms each waiter's budget deadline; the system clock when absent. */
  clock?: Clock | undefined;
  hooks?: DecodeAdmissionHooks | undefined;
}

/** One decode worker's rooms, keyed by worker key so a same-URL replacement inherits them. */
interface WorkerState {
  readonly key: string;
  url: string;
  window: number | undefined;
  claimed: number;
  readonly queue: WaitQueue<DecodeClaim>;
  /** Removed from the registry while claims were still out: no gauge updates. */
  removed: boolean;
}

type WorkerRef = Pick<Worker, 'key'> | string;

export class DecodeAdmission {
  readonly #states = new Map<string, WorkerState>();
  readonly #waitMs: number;
  readonly #clock: Clock;
  readonly #hooks: DecodeAdmissionHooks;
  #closed = false;

  constructor(opts: DecodeAdmissionOptions) {
    this.#waitMs = new WaitBudget(opts.waitSecs * 1000).initialMs;
    this.#clock = opts.clock ?? systemClock;
    this.#hooks = opts.hooks ?? {};
  }

  /** A full budget for one client request; pass the same one to every attempt. */
  newBudget(): WaitBudget {
    return new WaitBudget(this.#waitMs);
  }

  /**
   * Claims `rooms` on `worker`. Resolves at once when the window has room and nobody waits,
   * otherwise queues (FIFO) until the rooms free, the budget runs out (retryable shed), the
   * worker is removed or stops being ready (retryable shed), or the signal aborts. Once the
   * promise resolves the caller owns the claim and must release it on every exit path.
   */
  claim(worker: Worker, rooms: number, opts: ClaimOptions = {}): Promise<DecodeClaim> {
    if (!Number.isSafeInteger(rooms) || rooms < 1) {
      return Promise.reject(
        new RangeError(`a decode claim needs a positive integer of rooms, got ${rooms}`),
      );
    }
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const window = windowOf(worker);
    const existing = this.#states.get(worker.key);
    if (window === undefined && existing === undefined)
      return Promise.resolve(ungated(worker.key, rooms));

    let state = existing ?? this.#newState(worker, window);
    state.url = worker.url;
    if (state.window !== window) {
      // Labels changed since the last claim; a wider window may admit waiters right now. The
      // drain may leave the state idle and forget it, so look it up again before claiming.
      state.window = window;
      this.#drain(state);
      state = this.#states.get(worker.key) ?? this.#newState(worker, window);
    }
    if (state.window === undefined) return Promise.resolve(ungated(worker.key, rooms));
    const need = Math.min(rooms, state.window);
    if (state.queue.size === 0 && state.claimed + need <= state.window) {
      return Promise.resolve(this.#take(state, rooms, need));
    }

    const budget = opts.budget ?? this.newBudget();
    if (budget.exhausted) {
      this.#hooks.onShed?.(state.key, 'budget');
      const err = windowShed(state.url, state.window, budget);
      this.#gc(state);
      return Promise.reject(err);
    }
    return this.#enqueue(state, rooms, budget, signal);
  }

  /** Rooms currently claimed on the worker (0 when ungated or idle). */
  claimed(worker: WorkerRef): number {
    return this.#states.get(keyOf(worker))?.claimed ?? 0;
  }

  /** Requests queued for the worker's window. */
  waiting(worker: WorkerRef): number {
    return this.#states.get(keyOf(worker))?.queue.size ?? 0;
  }

  /**
   * Follows the registry: a replacement refreshes the window (claims are keyed by worker key,
   * so they carry over); removal, or leaving `ready`, fails the waiters at once with a
   * retryable shed so the retry re-selects instead of waiting out the budget. Returns detach.
   */
  attach(registry: EventEmitter<RegistryEvents>): () => void {
    const added = (w: Worker): void => this.#refresh(w);
    const replaced = (prev: Worker, next: Worker): void => {
      if (prev.key !== next.key) this.#workerGone(prev.key, 'removed');
      this.#refresh(next);
    };
    const removed = (w: Worker): void => this.#workerGone(w.key, 'removed');
    const health = (w: Worker): void => {
      if (w.status !== 'ready') this.#failWaiters(w.key, 'unhealthy');
    };
    registry.on('added', added);
    registry.on('replaced', replaced);
    registry.on('removed', removed);
    registry.on('health', health);
    return () => {
      registry.off('added', added);
      registry.off('replaced', replaced);
      registry.off('removed', removed);
      registry.off('health', health);
    };
  }

  /** Fails every waiter with the final `shutting_down` (wait-queue.ts); claims stay valid. */
  close(): void {
    this.#closed = true;
    for (const state of [...this.#states.values()]) state.queue.close();
  }

  #newState(worker: Worker, window: number | undefined): WorkerState {
    const state: WorkerState = {
      key: worker.key,
      url: worker.url,
      window,
      claimed: 0,
      // A waiter that leaves (granted, deadline, abort) may leave the worker idle: forget it.
      queue: new WaitQueue({ clock: this.#clock, onSizeChange: () => this.#gc(state) }),
      removed: false,
    };
    if (this.#closed) state.queue.close();
    this.#states.set(state.key, state);
    return state;
  }

  #enqueue(
    state: WorkerState,
    rooms: number,
    budget: WaitBudget,
    signal: AbortSignal | undefined,
  ): Promise<DecodeClaim> {
    const claim = state.queue.enqueue({
      // Strict FIFO: the head's rooms must all be free; rooms freed meanwhile are held for it.
      tryGrant: () => {
        // The worker stopped reporting a window: it is no longer gated, let everyone through.
        if (state.window === undefined) return ungated(state.key, rooms);
        const need = Math.min(rooms, state.window);
        return state.claimed + need <= state.window ? this.#take(state, rooms, need) : undefined;
      },
      signal,
      deadlineMs: budget.remainingMs,
      timeoutError: () => {
        this.#hooks.onShed?.(state.key, 'budget');
        return windowShed(state.url, state.window ?? 0, budget);
      },
      abortError: (reason) => reason as Error,
      onLeave: (reason, waitedMs) => {
        if (reason === 'timeout') budget.exhaust();
        else budget.consume(waitedMs);
      },
    });
    this.#hooks.onWait?.(state.key);
    return claim;
  }

  /** Grants waiters from the head only, while the head's rooms are free (strict FIFO). */
  #drain(state: WorkerState): void {
    state.queue.pump();
    this.#gc(state);
  }

  #take(state: WorkerState, requested: number, granted: number): DecodeClaim {
    this.#adjust(state, granted);
    return new RoomClaim(state.key, requested, granted, (n) => {
      this.#adjust(state, -n);
      this.#drain(state);
    });
  }

  #adjust(state: WorkerState, delta: number): void {
    state.claimed += delta;
    if (!state.removed) this.#hooks.onClaimedChange?.(state.key, state.claimed);
  }

  /** Forgets an idle worker so churned URLs do not accumulate; the next claim starts afresh. */
  #gc(state: WorkerState): void {
    if (state.claimed === 0 && state.queue.size === 0 && this.#states.get(state.key) === state) {
      this.#states.delete(state.key);
    }
  }

  #refresh(worker: Worker): void {
    const state = this.#states.get(worker.key);
    if (!state) return;
    state.url = worker.url;
    state.window = windowOf(worker);
    if (state.removed) {
      // Re-added while old claims still run on the same engine: they still occupy its window.
      state.removed = false;
      this.#hooks.onClaimedChange?.(state.key, state.claimed);
    }
    this.#drain(state);
  }

  #workerGone(key: string, reason: 'removed'): void {
    this.#failWaiters(key, reason);
    const state = this.#states.get(key);
    // Outstanding claims stay counted (their requests still run) until released, silently.
    if (state) state.removed = true;
    this.#hooks.onWorkerGone?.(key);
  }

  #failWaiters(key: string, reason: 'removed' | 'unhealthy'): void {
    const state = this.#states.get(key);
    if (!state) return;
    for (let i = 0; i < state.queue.size; i++) this.#hooks.onShed?.(key, reason);
    state.queue.failAll(workerGoneShed(state.url, reason));
    this.#gc(state);
  }
}

function keyOf(worker: WorkerRef): string {
  return typeof worker === 'string' ? worker : worker.key;
}

/** Decode admission for a PD-capable gateway unless `--disable-pd-decode-admission`. */
export function decodeAdmissionFromConfig(
  config: GatewayConfig,
  deps: Pick<DecodeAdmissionOptions, 'clock' | 'hooks'> = {},
): DecodeAdmission | undefined {
  const pdCapable = config.pdDisaggregation || config.enableIgw;
  if (!pdCapable || config.disablePdDecodeAdmission) return undefined;
  return new DecodeAdmission({ waitSecs: config.pdAdmissionWaitSecs, ...deps });
}
