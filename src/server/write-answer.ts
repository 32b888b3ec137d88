/**
 * The one writer: puts an answer on the client's response and releases the answer's leases
 * exactly once, whichever way it ends (written whole, client gone before or during the body,
 * worker failing mid-body). Writes follow the client's pace: a full socket buffer pauses the
 * body source until 'drain'.
 *
 * An event stream's head goes out at once, so the client sees it before the first token. Any
 * other body's head waits for its first byte: a worker that fails before sending any then gets a
 * proper JSON error instead of a cut connection.
 */
import type { ServerResponse } from 'node:http';
import { endWithError, markEventStream, sendError } from '../errors/respond.js';
import { releaseLeases, type Answer, type AnswerEnd } from '../routing/answer.js';
import type { BodySink } from '../upstream/body-source.js';

/** Raised into an answer's body when the client leaves before it was written whole. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
}

class AnswerWriter implements BodySink {
  #headWritten = false;
  #firstByte = true;
  #settled = false;
  readonly #onDrain = (): void => {
    this.answer.body.resume();
  };
  readonly #onClose = (): void => {
    if (this.res.writableFinished) return;
    this.answer.body.cancel(new ClientGoneError('client closed the connection'));
    this.#finish('client_closed');
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly answer: Answer,
    private readonly done: (end: AnswerEnd) => void,
  ) {}

  start(): void {
    const { res, answer } = this;
    if (res.destroyed) {
      answer.body.cancel(new ClientGoneError('client left before the answer'));
      this.#finish('client_closed');
      return;
    }
    res.on('close', this.#onClose);
    res.on('drain', this.#onDrain);
    // A body that failed while the answer waited (a PD decode dying while its prefill answered)
    // is answered as an error with its own status, not as a 200 head with an error after it.
    if (answer.body.failure) {
      this.onError(answer.body.failure);
      return;
    }
    if (answer.eventStream) {
      this.#writeHead();
      markEventStream(res);
      res.flushHeaders();
    }
    answer.body.attach(this);
  }

  #writeHead(): void {
    this.#headWritten = true;
    this.res.writeHead(this.answer.status, this.answer.headers);
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return false;
    if (!this.#headWritten) this.#writeHead();
    if (this.#firstByte) {
      this.#firstByte = false;
      this.answer.onFirstByte?.();
    }
    return this.res.write(chunk);
  }

  onEnd(): void {
    if (this.#settled) return;
    if (!this.#headWritten) this.#writeHead();
    this.res.end(() => this.#finish('complete'));
  }

  onError(err: Error): void {
    if (this.#settled) return;
    if (this.res.destroyed) {
      this.#finish('client_closed', err);
      return;
    }
    const error = this.answer.midStreamError(err);
    if (this.#headWritten) endWithError(this.res, error);
    else sendError(this.res, error);
    this.#finish('upstream_failed', err);
  }

  #finish(end: AnswerEnd, error?: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.res.off('close', this.#onClose);
    this.res.off('drain', this.#onDrain);
    releaseLeases(this.answer, end, error);
    this.done(end);
  }
}

/**
 * Writes `answer` to `res`. Resolves with how the answer ended once its leases are released;
 * never rejects for a failure of the client or the worker.
 */
export function writeAnswer(res: ServerResponse, answer: Answer): Promise<AnswerEnd> {
  return new Promise((resolve) => {
    new AnswerWriter(res, answer, resolve).start();
  });
}
