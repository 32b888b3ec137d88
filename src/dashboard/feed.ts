/**
 * The dashboard's data: once a second, while anyone watches, the metrics are rendered (the same
 * text `/metrics` serves), read, and turned into a frame that every connected page receives. The
 * last HISTORY_FRAMES frames are kept so a page opened or reloaded later draws its plots at once.
 *
 * Nobody watching costs nothing: sampling starts with the first page and stops once no page has
 * been connected for the length of the history (what is kept would be stale by then anyway).
 */
import type { Clock } from '@switchyard/kit';
import { every } from '../util/every.js';
import { parseExposition } from './exposition.js';
import { FRAME_INTERVAL_MS, HISTORY_FRAMES, type DashboardFrame } from './frame.js';
import { FrameBuilder } from './frame-builder.js';

/** A frame and its JSON, serialised once however many pages receive it. */
export type FrameListener = (frame: DashboardFrame, json: string) => void;

export interface DashboardFeedOptions {
  /** The metrics exposition text, as `/metrics` would answer now. */
  render(): Promise<string>;
  clock: Clock;
  /** Unix time in ms for the frames' `t` (the clock is monotonic). */
  wallClock?: () => number;
  /** A failed render (e.g. a `--workers` process not answering); the next tick tries again. */
  onError?: (err: unknown) => void;
}

export class DashboardFeed {
  readonly #opts: DashboardFeedOptions;
  readonly #listeners = new Set<FrameListener>();
  #history: { frame: DashboardFrame; json: string }[] = [];
  #builder = new FrameBuilder();
  #stop: (() => void) | undefined;
  #rendering = false;
  /** Monotonic time the last page left, or undefined while one is connected. */
  #idleSince: number | undefined;
  #closed = false;

  constructor(opts: DashboardFeedOptions) {
    this.#opts = opts;
  }

  /** Frames kept, oldest first. */
  history(): readonly DashboardFrame[] {
    return this.#history.map((entry) => entry.frame);
  }

  /** The kept frames as one JSON array, from the strings already made for the live pages. */
  historyJson(): string {
    return `[${this.#history.map((entry) => entry.json).join(',')}]`;
  }

  /** Receives every frame from the next tick on; returns the unsubscribe. */
  subscribe(listener: FrameListener): () => void {
    if (this.#closed) return () => {};
    this.#listeners.add(listener);
    this.#idleSince = undefined;
    if (!this.#stop) this.#start();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#idleSince = this.#opts.clock.now();
    };
  }

  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    this.#stop?.();
    this.#stop = undefined;
  }

  #start(): void {
    // Frames from before a pause would put a gap of minutes inside one rate or percentile window.
    this.#history = [];
    this.#builder = new FrameBuilder();
    this.#stop = every(this.#opts.clock, FRAME_INTERVAL_MS, () => this.#tick());
    this.#tick();
  }

  #publish(text: string): void {
    const frame = this.#builder.next(parseExposition(text), (this.#opts.wallClock ?? Date.now)());
    const json = JSON.stringify(frame);
    this.#history.push({ frame, json });
    if (this.#history.length > HISTORY_FRAMES) this.#history.shift();
    for (const listener of this.#listeners) listener(frame, json);
  }

  #tick(): void {
    const idle = this.#idleSince;
    if (idle !== undefined && this.#opts.clock.now() - idle >= HISTORY_FRAMES * FRAME_INTERVAL_MS) {
      this.#stop?.();
      this.#stop = undefined;
      // Kept, they would greet the next page with a fleet as it was when the last one left.
      this.#history = [];
      return;
    }
    // A render slower than a second (a busy primary) skips ticks instead of piling them up.
    if (this.#rendering) return;
    this.#rendering = true;
    this.#opts.render().then(
      (text) => {
        this.#rendering = false;
        if (this.#closed) return;
        // Inside a promise callback a throw would be an unhandled rejection, which ends the
        // process: a frame that cannot be built is reported and skipped instead.
        try {
          this.#publish(text);
        } catch (err) {
          this.#opts.onError?.(err);
        }
      },
      (err: unknown) => {
        this.#rendering = false;
        this.#opts.onError?.(err);
      },
    );
  }
}
