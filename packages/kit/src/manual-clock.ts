import type { Clock, Timer } from './clock.js';

interface ManualEntry {
  readonly id: number;
  readonly due: number;
  readonly fn: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` runs every timer that falls due, in due
 * order (ties in creation order), including timers those callbacks arm inside the window.
 * `settle(ms)` does the same but lets promise chains run between timers, for code under test
 * whose timer callbacks resolve promises that arm the next timer.
 */
export class ManualClock implements Clock {
  #t = 0;
  #nextId = 0;
  readonly #pending = new Map<number, ManualEntry>();

  constructor(start = 0) {
    this.#t = start;
  }

  now(): number {
    return this.#t;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const entry = { id: ++this.#nextId, due: this.#t + Math.max(0, ms), fn };
    this.#pending.set(entry.id, entry);
    return entry as unknown as Timer;
  }

  clearTimer(timer: Timer | undefined): void {
    if (timer !== undefined) this.#pending.delete((timer as unknown as ManualEntry).id);
  }

  /** Timers armed and not yet run or cleared. */
  get size(): number {
    return this.#pending.size;
  }

  /** Moves time forward by `ms`, running each timer that falls due synchronously. */
  advance(ms: number): void {
    const end = this.#t + ms;
    for (let next = this.#nextDue(end); next; next = this.#nextDue(end)) this.#run(next);
    this.#t = end;
  }

  /** As `advance`, yielding to the event loop before and after each timer so promises settle. */
  async settle(ms = 0): Promise<void> {
    const end = this.#t + ms;
    await yieldToEventLoop();
    for (let next = this.#nextDue(end); next; next = this.#nextDue(end)) {
      this.#run(next);
      await yieldToEventLoop();
    }
    this.#t = end;
  }

  #nextDue(end: number): ManualEntry | undefined {
    let next: ManualEntry | undefined;
    for (const e of this.#pending.values()) {
      if (e.due <= end && (next === undefined || e.due < next.due)) next = e;
    }
    return next;
  }

  #run(entry: ManualEntry): void {
    this.#pending.delete(entry.id);
    this.#t = Math.max(this.#t, entry.due);
    entry.fn();
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
