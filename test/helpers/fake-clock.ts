import type { Clock } from '../../src/util/clock.js';

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  #now = 1_000_000;
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}
