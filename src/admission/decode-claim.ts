/**
 * The claim object of decode admission: rooms held on one decode worker, returned exactly once
 * whether the request ends, fails, retries or loses its client: a leaked claim would wedge the
 * decode worker for good.
 */
import type { Lease } from '../util/lease.js';

/** The rooms one request holds on one decode worker. */
export interface DecodeClaim extends Lease {
  /** The worker's registry key (URL, `@rank` for DP-aware workers): claims follow the key. */
  readonly workerKey: string;
  /** Rooms the plan needs (batch items, n>1 fan-out). */
  readonly requested: number;
  /** Rooms granted: min(requested, window). Send at most this many sub-requests at a time. */
  readonly granted: number;
  /** Rooms still held: `granted` minus what `releasePart` gave back. */
  readonly held: number;
  /** False when the worker reports no window: nothing is counted and release does nothing. */
  readonly gated: boolean;
  /**
   * Gives back `n` rooms early; release() later returns only the rest. For the tail of a paced
   * plan: once no sub-request is left to send, each finishing one frees its room at once
   * instead of idling until the last one ends.
   */
  releasePart(n: number): void;
}

/** Rooms held on a worker; release and releasePart return each room exactly once. */
export class RoomClaim implements DecodeClaim {
  #held: number;
  #released = false;

  constructor(
    readonly workerKey: string,
    readonly requested: number,
    readonly granted: number,
    private readonly giveBack: ((n: number) => void) | undefined,
  ) {
    this.#held = granted;
  }

  get gated(): boolean {
    return this.giveBack !== undefined;
  }

  get held(): number {
    return this.#held;
  }

  get released(): boolean {
    return this.#released;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#return(this.#held);
  }

  [Symbol.dispose](): void {
    this.release();
  }

  releasePart(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0)
      throw new RangeError(`releasePart needs a non-negative integer, got ${n}`);
    if (this.#released) return;
    this.#return(Math.min(n, this.#held));
    if (this.#held === 0) this.#released = true;
  }

  #return(n: number): void {
    if (n === 0) return;
    this.#held -= n;
    this.giveBack?.(n);
  }
}

/** A worker without a window: the whole plan goes at once and nothing is counted. */
export function ungated(workerKey: string, rooms: number): DecodeClaim {
  return new RoomClaim(workerKey, rooms, rooms, undefined);
}
