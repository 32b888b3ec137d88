// Simulated time. Every duration in the simulator (TTFT, engine steps, PD deadlines, fault windows)
// is in *simulated* milliseconds and goes through a Clock, so that `--time-scale` can run a 300 s
// deadline in 3 s, and tests can drive the engine on a ManualClock with no sleeps at all.
import type { Clock, Timer } from '@switchyard/kit';

/**
 * Wall-clock time divided by `scale`: with scale 0.01 a simulated second lasts 10 ms. Timers are
 * real setTimeout calls, so they fire no earlier than asked and may fire later on a busy machine.
 */
export class ScaledClock implements Clock {
  constructor(readonly scale = 1) {
    if (!(scale > 0) || !Number.isFinite(scale)) {
      throw new RangeError(`sim: time scale must be a finite number > 0, got ${String(scale)}`);
    }
  }

  now(): number {
    return performance.now() / this.scale;
  }

  setTimer(ms: number, fn: () => void): Timer {
    return setTimeout(fn, Math.max(0, ms * this.scale)) as unknown as Timer;
  }

  clearTimer(timer: Timer | undefined): void {
    if (timer !== undefined) clearTimeout(timer as unknown as NodeJS.Timeout);
  }
}
