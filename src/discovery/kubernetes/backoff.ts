/**
 * Reconnect delays of the pod watch: exponential with jitter, as kube-rs's `default_backoff`
 * that SMG's watcher uses (800 ms doubling to 30 s). The jitter spreads the reconnects of many
 * gateway replicas after an API server restart.
 */
import type { Random } from '@switchyard/kit';

export interface BackoffConfig {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffConfig = { initialMs: 800, maxMs: 30_000 };

export class Backoff {
  #next: number;

  constructor(
    private readonly config: BackoffConfig,
    private readonly random: Random,
  ) {
    this.#next = config.initialMs;
  }

  /** The delay before the next attempt: between half and all of the current step, which then doubles. */
  next(): number {
    const step = this.#next;
    this.#next = Math.min(this.config.maxMs, step * 2);
    return Math.round(step * (0.5 + 0.5 * this.random.next()));
  }

  /** After progress: the next failure waits the initial step again. */
  reset(): void {
    this.#next = this.config.initialMs;
  }
}
