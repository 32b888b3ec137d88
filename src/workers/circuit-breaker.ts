/**
 * SMG's per-worker circuit breaker (`worker/circuit_breaker.rs`): closed -> open after
 * `failureThreshold` consecutive failures; open -> half_open once `timeoutMs` has passed (checked
 * lazily, on the next state read, so it emits no event); half_open -> closed after
 * `successThreshold` successes, back to open on any failure. Failures are consecutive only (SMG
 * never consults its window setting either). Watchers (`onTransition`) hear every state change, the
 * lazy one included, so the registry can keep its lists of available workers current.
 */
import { RETRYABLE_STATUSES } from '../errors/retryable.js';
import type { Clock } from '@switchyard/kit';

export type CircuitState = 'closed' | 'open' | 'half_open';

/** Gauge values SMG uses for `smg_worker_cb_state`. */
export const CIRCUIT_STATE_VALUE: Record<CircuitState, number> = {
  closed: 0,
  open: 1,
  half_open: 2,
};

export interface CircuitConfig {
  failureThreshold: number;
  successThreshold: number;
  timeoutMs: number;
  /** A disabled breaker never opens. */
  disabled: boolean;
}

export type Outcome = 'success' | 'failure' | 'neutral';

export interface CircuitListener {
  transition(from: CircuitState, to: CircuitState): void;
  outcome(outcome: Outcome, state: CircuitBreaker): void;
}

export type TransitionWatcher = (from: CircuitState, to: CircuitState) => void;

export class CircuitBreaker {
  #state: CircuitState = 'closed';
  #failures = 0;
  #successes = 0;
  #changedAt: number;
  readonly #watchers: TransitionWatcher[] = [];

  constructor(
    private readonly config: CircuitConfig,
    private readonly clock: Clock,
    private readonly listener?: CircuitListener,
  ) {
    this.#changedAt = clock.now();
  }

  get state(): CircuitState {
    if (this.#state === 'open' && this.clock.now() - this.#changedAt >= this.config.timeoutMs) {
      this.#moveTo('half_open');
    }
    return this.#state;
  }

  get consecutiveFailures(): number {
    return this.#failures;
  }

  get consecutiveSuccesses(): number {
    return this.#successes;
  }

  canExecute(): boolean {
    return this.state !== 'open';
  }

  /**
   * While open: the clock time at which the next state read half-opens the breaker; otherwise
   * undefined. Reading it never changes the state.
   */
  get openUntil(): number | undefined {
    return this.#state === 'open' ? this.#changedAt + this.config.timeoutMs : undefined;
  }

  /** Calls `watcher` after every state change, the lazy open -> half_open one included. */
  onTransition(watcher: TransitionWatcher): void {
    this.#watchers.push(watcher);
  }

  record(outcome: Outcome): void {
    const state = this.state;
    if (outcome === 'success') {
      this.#failures = 0;
      this.#successes += 1;
      if (state === 'half_open' && this.#successes >= this.config.successThreshold)
        this.#moveTo('closed');
    } else if (outcome === 'failure') {
      this.#successes = 0;
      this.#failures += 1;
      if (state === 'half_open') this.#moveTo('open');
      else if (
        state === 'closed' &&
        !this.config.disabled &&
        this.#failures >= this.config.failureThreshold
      )
        this.#moveTo('open');
    }
    this.listener?.outcome(outcome, this);
  }

  #moveTo(next: CircuitState): void {
    const from = this.#state;
    this.#state = next;
    this.#changedAt = this.clock.now();
    this.#failures = 0;
    this.#successes = 0;
    this.listener?.transition(from, next);
    for (const watch of this.#watchers) watch(from, next);
  }
}

/**
 * SMG's outcome classes: 429 is capacity, not failure (neutral); the retryable statuses fail;
 * everything else, 4xx included, shows the worker is alive (success).
 */
export function outcomeForStatus(status: number): Outcome {
  if (status === 429) return 'neutral';
  if (RETRYABLE_STATUSES.has(status)) return 'failure';
  return 'success';
}
