/**
 * Time as an injected collaborator. Everything in the gateway and the simulator that reads the
 * time or arms a timer takes a `Clock`, so tests drive it with a `ManualClock` instead of sleeping.
 */

/** Opaque handle of an armed timer; only the clock that made it can clear it. */
export type Timer = { readonly __timer: never };

export interface TimerOptions {
  /**
   * Whether the timer alone keeps the process alive. Wait-queue deadlines and pollers pass false,
   * so an idle gateway or a finished test can exit while one is still armed.
   */
  readonly keepAlive?: boolean;
}

export interface Clock {
  /** Milliseconds, monotonic, arbitrary origin. */
  now(): number;
  /** Calls `fn` once, `ms` from now (0 = as soon as possible, never inline). */
  setTimer(ms: number, fn: () => void, options?: TimerOptions): Timer;
  /** Cancels a timer; a timer that already ran, or `undefined`, is ignored. */
  clearTimer(timer: Timer | undefined): void;
}

/** The real clock: `performance.now()` and Node's timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer(ms, fn, options) {
    const handle = setTimeout(fn, Math.max(0, ms));
    if (options?.keepAlive === false) handle.unref();
    return handle as unknown as Timer;
  },
  clearTimer(timer) {
    if (timer !== undefined) clearTimeout(timer as unknown as NodeJS.Timeout);
  },
};

/** Resolves after `ms` on `clock`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clock.clearTimer(timer);
      reject(signal?.reason as Error);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
