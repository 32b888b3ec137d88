/**
 * One request to a worker, driven by undici's dispatch handler: the response head resolves
 * `head`, and the body bytes go straight from undici's parser to whoever attached to the body,
 * with no Readable in between. It ends early when the client's signal aborts, when the
 * gateway's deadline for the whole answer passes, or when `abort()` is called (a failed partner
 * leg). Whatever way it ends, its timer and signal listener are gone.
 */
import type { Dispatcher } from 'undici';
import type { Clock, Timer } from '@switchyard/kit';
import { PushBody, type BodySource } from './body-source.js';
import { UpstreamDeadlineError } from './errors.js';

export type UpstreamHeaders = Record<string, string | string[]>;

export interface UpstreamHead {
  readonly status: number;
  /** Lower-cased names; a repeated header becomes an array. */
  readonly headers: UpstreamHeaders;
  readonly body: BodySource;
}

export interface UpstreamRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer | string | undefined;
}

/** Raised when `abort()` is called without a reason of its own. */
export class UpstreamAbortedError extends Error {
  override name = 'UpstreamAbortedError';
}

/** Parses undici's raw header list (name, value, name, value…) into lower-cased names. */
export function parseRawHeaders(raw: readonly Buffer[]): UpstreamHeaders {
  const out: UpstreamHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer).toString('latin1').toLowerCase();
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}

export class UpstreamCall extends PushBody {
  readonly head: Promise<UpstreamHead>;
  #resolveHead!: (head: UpstreamHead) => void;
  #rejectHead!: (err: Error) => void;
  #headSettled = false;
  #abortDispatch: ((err: Error) => void) | undefined;
  #resumeParser: (() => void) | undefined;
  #parserPaused = false;
  #abortReason: Error | undefined;
  #deadlinePassed = false;
  #done = false;
  readonly #timer: Timer;
  readonly #clock: Clock;
  readonly #clientSignal: AbortSignal;
  readonly #onClientAbort = (): void => {
    this.abort(this.#clientSignal.reason as Error);
  };

  constructor(
    dispatcher: Dispatcher,
    req: UpstreamRequest,
    clientSignal: AbortSignal,
    deadlineMs: number,
    clock: Clock,
  ) {
    super();
    this.head = new Promise<UpstreamHead>((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    // A head nobody awaits (a retired leg) must not surface as an unhandled rejection.
    this.head.catch(() => undefined);
    this.#clientSignal = clientSignal;
    this.#clock = clock;
    this.#timer = clock.setTimer(deadlineMs, () => {
      this.#deadlinePassed = true;
      this.abort(new UpstreamDeadlineError(`no complete answer within ${deadlineMs} ms`));
    });
    if (clientSignal.aborted) {
      this.#abortReason = clientSignal.reason as Error;
    } else {
      clientSignal.addEventListener('abort', this.#onClientAbort, { once: true });
    }
    dispatcher.dispatch(
      { method: req.method, path: req.path, headers: req.headers, body: req.body ?? null },
      this,
    );
  }

  /** Whether the gateway's deadline, rather than a client or a partner, ended the call. */
  get deadlinePassed(): boolean {
    return this.#deadlinePassed;
  }

  /** Whether the call is over: answered whole, failed or aborted. */
  get done(): boolean {
    return this.#done;
  }

  /** Whether the call was ended by the gateway (client gone, partner failed, deadline). */
  get aborted(): boolean {
    return this.#abortReason !== undefined;
  }

  get abortReason(): Error | undefined {
    return this.#abortReason;
  }

  /** Ends the call now: a pending head rejects, a running body fails with `reason`. */
  abort(reason: Error = new UpstreamAbortedError('upstream call aborted')): void {
    if (this.#done || this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#abortDispatch?.(reason);
  }

  protected resumeProducer(): void {
    if (!this.#parserPaused) return;
    this.#parserPaused = false;
    this.#resumeParser?.();
  }

  protected cancelProducer(reason: Error): void {
    this.abort(reason);
  }

  #settle(): void {
    if (this.#done) return;
    this.#done = true;
    this.#clock.clearTimer(this.#timer);
    this.#clientSignal.removeEventListener('abort', this.#onClientAbort);
  }

  // undici's dispatch handler. The legacy callback form is used deliberately: it hands over the
  // raw header list and the parser's resume function directly, where the newer controller form
  // wraps every call in two more objects and parses the headers for us (a cost per request).

  onConnect(abort: (err: Error) => void): void {
    if (this.#abortReason !== undefined) abort(this.#abortReason);
    else this.#abortDispatch = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (status < 200) return true; // 1xx informational: the real head follows
    this.#resumeParser = resume;
    this.#headSettled = true;
    this.#resolveHead({ status, headers: parseRawHeaders(rawHeaders), body: this });
    return true;
  }

  onData(chunk: Buffer): boolean {
    const more = this.push(chunk);
    if (!more) this.#parserPaused = true;
    return more;
  }

  onComplete(): void {
    this.#settle();
    this.end();
  }

  onError(err: Error): void {
    this.#settle();
    const reason = this.#abortReason ?? err;
    if (!this.#headSettled) {
      this.#headSettled = true;
      this.#rejectHead(reason);
    } else this.fail(reason);
  }
}

/** Starts a call; see `UpstreamCall`. */
export function callUpstream(
  dispatcher: Dispatcher,
  req: UpstreamRequest,
  clientSignal: AbortSignal,
  deadlineMs: number,
  clock: Clock,
): UpstreamCall {
  return new UpstreamCall(dispatcher, req, clientSignal, deadlineMs, clock);
}
