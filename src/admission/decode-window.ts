/**
 * The pieces of decode admission that are not the controller itself: how a decode worker's
 * running window is read from its labels, the wait budget a client request carries across retry
 * attempts, and the shed errors.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { Worker } from '../workers/worker.js';

/**
 * Labels naming the engine's running window, in order of authority: vLLM and TokenSpeed report
 * `max_num_seqs` as the real cap, SGLang reports `max_running_requests`.
 */
export const WINDOW_LABELS = ['max_num_seqs', 'max_running_requests'] as const;

/**
 * The decode worker's running window, or undefined when it reports none (then it is not gated,
 * which is the behaviour before decode admission existed). The first label holding a positive
 * integer wins: a malformed or zero `max_num_seqs` must not disable a valid fallback. A gRPC
 * worker without either label (vLLM's server info names neither) takes `max_running_requests`
 * from its latest `GetLoads` report, summed over the ranks it reports.
 */
export function windowOf(
  worker: Pick<Worker, 'labels'> & Partial<Pick<Worker, 'connectionMode' | 'loadSnapshot'>>,
): number | undefined {
  for (const name of WINDOW_LABELS) {
    const raw = worker.labels[name]?.trim();
    if (raw === undefined || !/^\d+$/.test(raw)) continue;
    const n = Number(raw);
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  if (worker.connectionMode === 'grpc' && worker.loadSnapshot) {
    const n = worker.loadSnapshot.ranks.reduce((a, r) => a + r.maxRunningRequests, 0);
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  return undefined;
}

/**
 * How long one client request may still wait for decode room, summed over all of its attempts.
 * The caller creates one per client request and hands the same object to every attempt's claim,
 * so a retry waits only for what is left: max_retries attempts never multiply the wait.
 */
export class WaitBudget {
  readonly initialMs: number;
  #remainingMs: number;

  constructor(initialMs: number) {
    if (!Number.isFinite(initialMs) || initialMs < 0) {
      throw new RangeError(
        `wait budget must be a finite non-negative number of ms, got ${initialMs}`,
      );
    }
    this.initialMs = initialMs;
    this.#remainingMs = initialMs;
  }

  /** From `--pd-admission-wait-secs` (0 = shed at once). */
  static fromSecs(secs: number): WaitBudget {
    return new WaitBudget(secs * 1000);
  }

  get remainingMs(): number {
    return this.#remainingMs;
  }

  get exhausted(): boolean {
    return this.#remainingMs <= 0;
  }

  /** Charges time spent waiting; negative or non-finite amounts (clock skew) charge nothing. */
  consume(ms: number): void {
    if (!Number.isFinite(ms) || ms <= 0) return;
    this.#remainingMs = Math.max(0, this.#remainingMs - ms);
  }

  /** The deadline fired: whatever the clocks say, nothing is left to wait. */
  exhaust(): void {
    this.#remainingMs = 0;
  }
}

/**
 * Retry-After for a decode-window shed, in seconds: half the configured wait, at least 1. It is
 * derived from the wait budget because the budget is what just ran out (SMG used the unrelated
 * load-monitor interval): a window that stayed full for the whole wait is worth retrying after a
 * fraction of that same patience, and wait 0 still answers 1 s.
 */
export function retryAfterSecs(budget: WaitBudget): number {
  return Math.max(1, Math.ceil(budget.initialMs / 2000));
}

/** Why a claim was refused with a retryable shed; handed to the `onShed` hook. */
export type ShedReason = 'budget' | 'removed' | 'unhealthy';

/**
 * The decode-window shed. Code `no_available_workers` (503) as SMG's shed helper; retryable, so
 * the retry executor re-selects a different pair instead of answering a hard 503 while other
 * pairs are idle. The budget, not this error, stops retries from waiting again.
 */
export function windowShed(url: string, window: number, budget: WaitBudget): GatewayError {
  const spent =
    budget.initialMs === 0
      ? 'admission waiting is disabled (--pd-admission-wait-secs 0)'
      : `no room freed within the ${budget.initialMs / 1000}s admission wait budget`;
  return new GatewayError(
    'no_available_workers',
    `Decode worker ${url} is at its running window (${window}); ${spent}`,
    { headers: { 'retry-after': String(retryAfterSecs(budget)) }, retryable: true },
  );
}

/** A waiter's worker left the fleet or stopped being ready: retry at once on another pair. */
export function workerGoneShed(url: string, reason: 'removed' | 'unhealthy'): GatewayError {
  const what = reason === 'removed' ? 'was removed' : 'stopped being ready';
  return new GatewayError(
    'no_available_workers',
    `Decode worker ${url} ${what} while the request waited for room in its running window`,
    { headers: { 'retry-after': '1' }, retryable: true },
  );
}
