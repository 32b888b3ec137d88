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
 * Scope: claims are counted in the admission store (store/types.ts): this process, the primary of
 * `launch --workers N`, or Redis shared by every replica. The queue stays in the process, so FIFO
 * holds per process; across processes the store decides who takes freed rooms first. Traffic sent
 * to the engine directly is not seen at all: the window is an estimate.
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
import { AsyncGrant } from './store/async-grant.js';
import { InProcessStore } from './store/in-process-store.js';
import { StoreGate } from './store/store-gate.js';
import {
  STORE_POLL_MS,
  type AdmissionStore,
  type StoreTicket,
  type TakeResult,
} from './store/types.js';

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
  /** Where claims are counted; this process's memory when absent. */
  store?: AdmissionStore | undefined;
}

/** The store key of a decode worker's rooms. */
export const decodeStoreKey = (workerKey: string): string => `decode:${workerKey}`;

/** One decode worker's rooms, keyed by worker key so a same-URL replacement inherits them. */
interface WorkerState {
  readonly key: string;
  url: string;
  window: number | undefined;
  /** Rooms claimed through this process (its share of the store's total; the gauge). */
  claimed: number;
  readonly queue: WaitQueue<DecodeClaim>;
  /** The queue size last reported to the store gate's waiter count. */
  waiters: number;
  /** Removed from the registry while claims were still out: no gauge updates. */
  removed: boolean;
}

type WorkerRef = Pick<Worker, 'key'> | string;

export class DecodeAdmission {
  readonly #states = new Map<string, WorkerState>();
  readonly #waitMs: number;
  readonly #clock: Clock;
  readonly #hooks: DecodeAdmissionHooks;
  readonly #gate: StoreGate;
  readonly #unsubscribe: () => void;
  #closed = false;

  constructor(opts: DecodeAdmissionOptions) {
    this.#waitMs = new WaitBudget(opts.waitSecs * 1000).initialMs;
    this.#clock = opts.clock ?? systemClock;
    this.#hooks = opts.hooks ?? {};
    const store = opts.store ?? new InProcessStore();
    this.#gate = new StoreGate(store, this.#clock, () => this.#drainWaiting());
    // Rooms freed by another process wake this process's waiters for that worker. An in-process
    // store frees only through this controller, which drains on release already.
    this.#unsubscribe = store.synchronous
      ? () => undefined
      : store.onFreed((key) => {
          if (!key.startsWith('decode:')) return;
          const state = this.#states.get(key.slice('decode:'.length));
          if (state) this.#drain(state);
        });
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
    const budget = opts.budget ?? this.newBudget();
    // An async store answers after a round trip: every request queues, so only the head asks
    // and arrival order holds (a take racing another arrival's could reorder them), and the
    // request's deadline and client signal apply while it asks.
    if (!this.#gate.store.synchronous) return this.#enqueue(state, rooms, budget, signal);
    if (state.queue.size > 0) return this.#waitOrShed(state, rooms, budget, signal);
    const ticket = (this.#ask(state, rooms) as TakeResult | undefined)?.ticket;
    if (ticket) return Promise.resolve(this.#claimFrom(state, rooms, ticket));
    return this.#waitOrShed(state, rooms, budget, signal);
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
    this.#unsubscribe();
    this.#gate.close();
    for (const state of [...this.#states.values()]) state.queue.close();
  }

  #newState(worker: Worker, window: number | undefined): WorkerState {
    const state: WorkerState = {
      key: worker.key,
      url: worker.url,
      window,
      claimed: 0,
      // A waiter that leaves (granted, deadline, abort) may leave the worker idle: forget it.
      queue: new WaitQueue({
        clock: this.#clock,
        onSizeChange: (n) => {
          this.#gate.waiters(n - state.waiters);
          state.waiters = n;
          this.#gc(state);
        },
      }),
      waiters: 0,
      removed: false,
    };
    if (this.#closed) state.queue.close();
    this.#states.set(state.key, state);
    return state;
  }

  /** Queues the request, or sheds it at once when its budget is already spent. */
  #waitOrShed(
    state: WorkerState,
    rooms: number,
    budget: WaitBudget,
    signal: AbortSignal | undefined,
  ): Promise<DecodeClaim> {
    if (!budget.exhausted) return this.#enqueue(state, rooms, budget, signal);
    this.#hooks.onShed?.(state.key, 'budget');
    const err = windowShed(state.url, state.window ?? 0, budget);
    this.#gc(state);
    return Promise.reject(err);
  }

  /**
   * Asks the store for min(rooms, window) rooms; undefined when the local view already knows
   * they cannot fit (no round trip).
   */
  #ask(state: WorkerState, rooms: number): TakeResult | Promise<TakeResult> | undefined {
    const window = state.window ?? 0;
    const need = Math.min(rooms, window);
    const key = decodeStoreKey(state.key);
    if (!this.#gate.worthAsking(key, need, window)) return undefined;
    return this.#gate.take(key, need, window);
  }

  #enqueue(
    state: WorkerState,
    rooms: number,
    budget: WaitBudget,
    signal: AbortSignal | undefined,
  ): Promise<DecodeClaim> {
    // A request waits (smg_pd_admission_waits_total) once: at once with the in-process store,
    // where it queues only when the window is full; with an async store, where every request
    // queues to ask, when its first answer is "full".
    let waited = false;
    const wait = (): void => {
      if (waited) return;
      waited = true;
      this.#hooks.onWait?.(state.key);
    };
    const pending = new AsyncGrant<StoreTicket>({
      attempt: () => {
        const answer = this.#ask(state, rooms);
        if (answer === undefined) {
          wait();
          return undefined;
        }
        return Promise.resolve(answer).then((r) => {
          if (r.ticket === undefined) wait();
          return r.ticket;
        });
      },
      pump: () => this.#drain(state),
      discard: (ticket) => this.#gate.giveBack(ticket, ticket.units),
    });
    const claim = state.queue.enqueue({
      // Strict FIFO: the head's rooms must all be free; rooms freed meanwhile are held for it.
      tryGrant: () => {
        // The worker stopped reporting a window: it is no longer gated, let everyone through.
        if (state.window === undefined) return ungated(state.key, rooms);
        if (this.#gate.store.synchronous) {
          const ticket = (this.#ask(state, rooms) as TakeResult | undefined)?.ticket;
          return ticket && this.#claimFrom(state, rooms, ticket);
        }
        const ticket = pending.tryGrant();
        return ticket && this.#claimFrom(state, rooms, ticket);
      },
      signal,
      // An async store's answer takes a round trip: a spent budget still gets one.
      deadlineMs: this.#gate.store.synchronous
        ? budget.remainingMs
        : Math.max(budget.remainingMs, STORE_POLL_MS),
      timeoutError: () => {
        this.#hooks.onShed?.(state.key, 'budget');
        return windowShed(state.url, state.window ?? 0, budget);
      },
      abortError: (reason) => reason as Error,
      onLeave: (reason, waitedMs) => {
        // Also when granted: a grant that was not the store's (the window label went away while
        // a take was in flight) leaves that take's late ticket to be given back.
        pending.left();
        if (reason === 'timeout') budget.exhaust();
        else budget.consume(waitedMs);
      },
    });
    if (this.#gate.store.synchronous) wait();
    // Nothing asked yet for an async store's arrival: the head (it, if the queue was empty) asks.
    else this.#drain(state);
    return claim;
  }

  /** Grants waiters from the head only, while the head's rooms are free (strict FIFO). */
  #drain(state: WorkerState): void {
    state.queue.pump();
    this.#gc(state);
  }

  /** Re-offers rooms to every worker's head (the async store's poll). */
  #drainWaiting(): void {
    for (const state of [...this.#states.values()]) if (state.queue.size > 0) this.#drain(state);
  }

  #claimFrom(state: WorkerState, requested: number, ticket: StoreTicket): DecodeClaim {
    const granted = ticket.units;
    this.#adjust(state, granted);
    return new RoomClaim(state.key, requested, granted, (n) => {
      this.#adjust(state, -n);
      this.#gate.giveBack(ticket, n);
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
  deps: Pick<DecodeAdmissionOptions, 'clock' | 'hooks' | 'store'> = {},
): DecodeAdmission | undefined {
  const pdCapable = config.pdDisaggregation || config.enableIgw;
  if (!pdCapable || config.disablePdDecodeAdmission) return undefined;
  return new DecodeAdmission({ waitSecs: config.pdAdmissionWaitSecs, ...deps });
}
