/**
 * One running `Generate`: the grpc-js server-streaming call wrapped as a `GenerateCall`
 * (SMG's `AbortOnDropStream`, `grpc_client/src/abort_on_drop.rs`).
 *
 * Listeners go on at construction, so an unconsumed or failed call never leaves an unhandled
 * 'error'. Messages are queued and the call is paused when the consumer falls behind, so
 * HTTP/2 flow control pushes back on the engine. The engine's `Abort` RPC, not `cancel()`
 * alone, is what frees a sequence: the Python servicers may not pass a cancelled stream on to
 * the scheduler.
 */
import { status, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import type { Clock, Timer } from '@switchyard/kit';
import { CONNECT_TIMEOUT_MS } from './channel.js';
import type { OutputNormaliser } from './normalise.js';
import { EngineCallError, type EngineOutput, type GenerateCall } from './types.js';

/** SMG's `DEFERRED_ABORT_MAX_WAIT`: how long a deferred abort waits for the first item. */
export const DEFERRED_ABORT_MAX_WAIT_MS = 30_000;

/** Queued messages at which the call is paused, and below which it resumes. */
const HIGH_WATER = 32;
const LOW_WATER = 8;

export interface GenerateCallDeps {
  clock: Clock;
  /**
   * Sends the engine's `Abort` for this request; resolves when the engine answered it or the
   * RPC gave up (its deadline), never rejects (the client logs failures).
   */
  abort: () => Promise<void>;
  /** Whether the client's channel has connected, for the connect timeout. */
  isConnected: () => boolean;
}

type Claim = 'open' | 'completed' | 'aborting';

export class GrpcGenerateCall implements GenerateCall {
  readonly started: Promise<void>;
  readonly closed: Promise<void>;
  #resolveClosed!: () => void;
  readonly #call: ClientReadableStream<unknown>;
  readonly #normaliser: OutputNormaliser;
  readonly #deps: GenerateCallDeps;
  readonly #queue: unknown[] = [];
  #resolveStarted!: () => void;
  #rejectStarted!: (e: EngineCallError) => void;
  #isStarted = false;
  /** A message, the end or an error arrived: the engine has answered with an item. */
  #received = false;
  #ended = false;
  #error: EngineCallError | undefined;
  #iterationDone = false;
  #paused = false;
  #wake: (() => void) | undefined;
  /** markCompleted and dispose's abort claim this once; whichever comes first wins. */
  #claim: Claim = 'open';
  #deferred = false;
  #disposed = false;
  #abortPending = false;
  /** The Abort was sent (or found needless) and `closed` hangs on it: it is sent once. */
  #abortSent = false;
  /** The gateway cancelled the call itself: the status that follows is its own, not the engine's. */
  #cancelledHere = false;
  #deferTimer: Timer | undefined;
  #connectTimer: Timer | undefined;
  #deadline: { timer: Timer | undefined; atMs: number } | undefined;

  constructor(
    readonly requestId: string,
    call: ClientReadableStream<unknown>,
    normaliser: OutputNormaliser,
    deps: GenerateCallDeps,
  ) {
    this.#call = call;
    this.#normaliser = normaliser;
    this.#deps = deps;
    this.started = new Promise<void>((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    // A caller that only iterates need not await `started`; its rejection is not unhandled.
    this.started.catch(() => undefined);
    this.closed = new Promise<void>((resolve) => (this.#resolveClosed = resolve));
    call.on('metadata', () => this.#markStarted());
    call.on('data', (message: unknown) => this.#onData(message));
    call.on('error', (err: ServiceError) => this.#onError(err));
    call.on('end', () => this.#onEnd());
    this.#connectTimer = deps.clock.setTimer(CONNECT_TIMEOUT_MS, () => this.#onConnectTimeout(), {
      keepAlive: false,
    });
  }

  markCompleted(): void {
    if (this.#claim === 'open') this.#claim = 'completed';
  }

  deferAbortUntilFirstItem(): this {
    this.#deferred = true;
    return this;
  }

  /**
   * The call's whole life, from now: a started call that has not ended `ms` later fails with
   * DEADLINE_EXCEEDED (504) and is aborted then, whether or not its owner is reading it. Before
   * it starts, the start wait (grpc/start-wait.ts) owns the same deadline.
   */
  expireAfter(ms: number): this {
    this.#clearDeadline();
    this.#deadline = { timer: undefined, atMs: this.#deps.clock.now() + ms };
    if (this.#isStarted) this.#armDeadline();
    return this;
  }

  /**
   * Ends the call. Completed: cancel quietly. Deferred with no item yet: keep the call until its
   * first message, end or error (at most 30 s) so a PD decode leg is not torn down while its
   * prefill is still writing KV, then cancel and abort. Otherwise cancel and abort at once.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#queue.length = 0;
    this.#deps.clock.clearTimer(this.#connectTimer);
    this.#clearDeadline();
    this.#notify();
    // The deadline aborted it already.
    if (this.#abortSent) return;
    if (this.#claim === 'completed') {
      // Every sample had its terminal response: the engine is done with the request.
      this.#cancelHere();
      this.#resolveClosed();
      return;
    }
    this.#claim = 'aborting';
    if (this.#deferred && !this.#received) {
      this.#abortPending = true;
      this.#deferTimer = this.#deps.clock.setTimer(
        DEFERRED_ABORT_MAX_WAIT_MS,
        () => this.#abortNow(),
        { keepAlive: false },
      );
      return;
    }
    this.#abortNow();
  }

  disposeNow(): void {
    this.#deferred = false;
    if (this.#abortPending) this.#abortNow();
    else this.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  [Symbol.asyncIterator](): AsyncIterator<EngineOutput> {
    return {
      next: () => this.#next(),
      return: () => {
        // Leaving a for-await loop ends iteration; aborting stays the owner's dispose().
        this.#iterationDone = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  async #next(): Promise<IteratorResult<EngineOutput>> {
    for (;;) {
      if (this.#disposed || this.#iterationDone) return { done: true, value: undefined };
      if (this.#queue.length > 0) {
        const message = this.#queue.shift();
        if (this.#paused && this.#queue.length <= LOW_WATER) {
          this.#paused = false;
          this.#call.resume();
        }
        try {
          return { done: false, value: this.#normaliser.normalise(message) };
        } catch (err) {
          this.#iterationDone = true;
          throw err;
        }
      }
      if (this.#error !== undefined) {
        this.#iterationDone = true;
        throw this.#error;
      }
      if (this.#ended) {
        this.#iterationDone = true;
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #onData(message: unknown): void {
    this.#markStarted();
    this.#received = true;
    if (this.#disposed) {
      this.#fireDeferredAbort();
      return;
    }
    this.#queue.push(message);
    if (!this.#paused && this.#queue.length >= HIGH_WATER) {
      this.#paused = true;
      this.#call.pause();
    }
    this.#notify();
  }

  #onError(err: ServiceError): void {
    this.#received = true;
    if (this.#error === undefined && !this.#disposed) {
      this.#error = new EngineCallError(err.code, err.details, !this.#isStarted);
      if (!this.#isStarted) this.#rejectStarted(this.#error);
    } else if (!this.#isStarted) {
      this.#rejectStarted(new EngineCallError(err.code, err.details, true));
    }
    this.#isStarted = true;
    this.#deps.clock.clearTimer(this.#connectTimer);
    this.#clearDeadline();
    // The engine ended the stream: it has let go of the request. A status that only answers the
    // gateway's own cancel says nothing about the engine; the Abort's answer does (#abortNow).
    const byEngine = !this.#cancelledHere;
    this.#notify();
    this.#fireDeferredAbort();
    if (byEngine) this.#resolveClosed();
  }

  #onEnd(): void {
    // A clean end means the engine answered, headers included.
    this.#markStarted();
    this.#received = true;
    this.#ended = true;
    this.#clearDeadline();
    // grpc-js also ends the stream of a call the gateway cancelled: that end is not the engine's.
    const byEngine = !this.#cancelledHere;
    this.#notify();
    this.#fireDeferredAbort();
    if (byEngine) this.#resolveClosed();
  }

  #markStarted(): void {
    if (this.#isStarted) return;
    this.#isStarted = true;
    this.#deps.clock.clearTimer(this.#connectTimer);
    if (this.#deadline !== undefined) this.#armDeadline();
    this.#resolveStarted();
  }

  #armDeadline(): void {
    const d = this.#deadline;
    if (d === undefined || d.timer !== undefined) return;
    if (this.#ended || this.#disposed || this.#error !== undefined) return;
    const left = Math.max(0, d.atMs - this.#deps.clock.now());
    d.timer = this.#deps.clock.setTimer(left, () => this.#onDeadline(), { keepAlive: false });
  }

  #clearDeadline(): void {
    const timer = this.#deadline?.timer;
    if (timer !== undefined) this.#deps.clock.clearTimer(timer);
  }

  /**
   * The call outlived its deadline: it fails like an engine error, and the engine is told to let
   * go now, not when the owner next reads: an owner writing to a slow client may not read for a
   * long time. What was queued stays, so the owner still reads the items and then the error.
   */
  #onDeadline(): void {
    if (this.#ended || this.#disposed || this.#error !== undefined) return;
    this.#error = new EngineCallError(
      status.DEADLINE_EXCEEDED,
      'the engine did not finish within --request-timeout-secs',
      false,
    );
    this.#claim = 'aborting';
    this.#abortNow();
    this.#notify();
  }

  #cancelHere(): void {
    this.#cancelledHere = true;
    this.#call.cancel();
  }

  /** The channel never connected: fail the call as a transport failure, before it started. */
  #onConnectTimeout(): void {
    if (this.#isStarted || this.#received || this.#deps.isConnected()) return;
    const error = new EngineCallError(
      status.UNAVAILABLE,
      `engine did not accept a connection within ${CONNECT_TIMEOUT_MS} ms`,
      true,
    );
    this.#error = error;
    this.#isStarted = true;
    this.#rejectStarted(error);
    // Never connected: the engine never had the request.
    this.#cancelHere();
    this.#notify();
    this.#resolveClosed();
  }

  #fireDeferredAbort(): void {
    if (this.#abortPending) this.#abortNow();
  }

  /**
   * A call the engine refused before it started (a Trailers-Only status) has nothing to abort:
   * SMG makes no abort-on-drop wrapper when generate() fails, and during an outage every failed
   * start and retry would otherwise fire an Abort at an engine that is down.
   */
  #abortNow(): void {
    this.#abortPending = false;
    if (this.#abortSent) return;
    this.#abortSent = true;
    this.#deps.clock.clearTimer(this.#deferTimer);
    // The engine already ended the stream with OK: it finished the request, nothing to abort.
    // (grpc-js emits a failed status's 'error' before its end, so #error tells them apart.)
    const finished = this.#ended && this.#error === undefined && !this.#cancelledHere;
    this.#cancelHere();
    if (finished || this.#error?.beforeStart === true) {
      this.#resolveClosed();
      return;
    }
    // The engine may keep the sequence after the cancel (a servicer need not pass it on), so it
    // has let go only once it answered the Abort (or the Abort gave up, after its 10 s deadline).
    void this.#deps.abort().then(() => this.#resolveClosed());
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
