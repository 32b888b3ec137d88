/**
 * The registration job's patience: probe, and if the worker did not answer, wait one
 * `--worker-startup-check-interval` and probe again, until `--worker-startup-timeout-secs`
 * has passed since the first probe (SMG retries its detection steps the same way).
 */
import { sleep, type Clock } from '@switchyard/kit';

export interface StartupTiming {
  startupCheckIntervalSecs: number;
  startupTimeoutSecs: number;
}

export class StartupWait {
  readonly #deadline: number;

  constructor(
    private readonly url: string,
    private readonly timing: StartupTiming,
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
  ) {
    this.#deadline = clock.now() + timing.startupTimeoutSecs * 1000;
  }

  /** Waits before the next probe; throws once the startup timeout has passed, or on abort. */
  async next(): Promise<void> {
    this.signal.throwIfAborted();
    const now = this.clock.now();
    if (now >= this.#deadline) {
      throw new Error(
        `Worker ${this.url} did not become healthy within ${this.timing.startupTimeoutSecs} s`,
      );
    }
    const intervalMs = this.timing.startupCheckIntervalSecs * 1000;
    await sleep(Math.min(intervalMs, this.#deadline - now), this.signal, this.clock);
  }
}
