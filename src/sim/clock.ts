// Simulated time. Every duration in the simulator (TTFT, engine steps, PD deadlines, fault windows)
// is expressed in *simulated* milliseconds and goes through a SimClock, so that `--time-scale`
// can run a 300 s deadline in 3 s, and unit tests can drive the engine on a manual clock with no
// sleeps at all.

/** Opaque timer handle of a SimClock. */
export interface SimTimer {
  readonly id: number;
}

export interface SimClock {
  /** Current simulated time in ms (monotonic, arbitrary origin). */
  now(): number;
  /** Calls `fn` once `ms` simulated milliseconds from now (0 = as soon as possible, not inline). */
  setTimer(ms: number, fn: () => void): SimTimer;
  clearTimer(timer: SimTimer | undefined): void;
}

interface RealTimer extends SimTimer {
  handle: NodeJS.Timeout;
}

/**
 * Wall-clock time divided by `scale`: with scale 0.01 a simulated second lasts 10 ms. Timers are
 * real setTimeout calls, so they fire no earlier than asked and may fire later on a busy machine.
 */
export class ScaledClock implements SimClock {
  private nextId = 0;

  constructor(readonly scale = 1) {
    if (!(scale > 0) || !Number.isFinite(scale)) {
      throw new RangeError(`sim: time scale must be a finite number > 0, got ${String(scale)}`);
    }
  }

  now(): number {
    return performance.now() / this.scale;
  }

  setTimer(ms: number, fn: () => void): SimTimer {
    const timer: RealTimer = {
      id: ++this.nextId,
      handle: setTimeout(fn, Math.max(0, ms * this.scale)),
    };
    return timer;
  }

  clearTimer(timer: SimTimer | undefined): void {
    if (timer !== undefined) clearTimeout((timer as RealTimer).handle);
  }
}

interface ManualEntry {
  id: number;
  due: number;
  fn: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` runs every timer that falls due, in due
 * order (ties in creation order), including timers those callbacks create inside the window.
 */
export class ManualClock implements SimClock {
  private t = 0;
  private nextId = 0;
  private readonly pending = new Map<number, ManualEntry>();

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): SimTimer {
    const entry = { id: ++this.nextId, due: this.t + Math.max(0, ms), fn };
    this.pending.set(entry.id, entry);
    return { id: entry.id };
  }

  clearTimer(timer: SimTimer | undefined): void {
    if (timer !== undefined) this.pending.delete(timer.id);
  }

  /** Timers not yet run. */
  get size(): number {
    return this.pending.size;
  }

  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: ManualEntry | undefined;
      for (const e of this.pending.values()) {
        if (e.due <= end && (next === undefined || e.due < next.due)) next = e;
      }
      if (next === undefined) break;
      this.pending.delete(next.id);
      this.t = Math.max(this.t, next.due);
      next.fn();
    }
    this.t = end;
  }
}
