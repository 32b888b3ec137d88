/**
 * The body of an answer as a push source with backpressure: the producer (an upstream call, a
 * buffer, a rewrite of another source) pushes chunks to one sink, which returns `false` to pause
 * it until `resume()`. Chunks that arrive before a sink is attached are queued, so a source can
 * be handed around (retry, PD relay) after its head arrived without losing bytes.
 */
import { UpstreamBodyTooLargeError } from './errors.js';

export interface BodySink {
  /** One chunk of body bytes. Return false to pause the source until `resume()`. */
  onData(chunk: Buffer): boolean;
  onEnd(): void;
  onError(err: Error): void;
}

export interface BodySource {
  /** Starts delivery to the one consumer; queued chunks come first. */
  attach(sink: BodySink): void;
  /** Resumes a source paused by a sink's `false`. */
  resume(): void;
  /** Stops the source and drops its bytes; the sink (if any) hears nothing more. */
  cancel(reason: Error): void;
  /** The error the body failed with, once it has failed (attached or not). */
  readonly failure: Error | undefined;
  /**
   * Calls `listener` once if the body fails, even while nobody reads it (a PD leg waiting for
   * its partner); returns a function that stops listening.
   */
  onFailure(listener: (err: Error) => void): () => void;
}

/** Bytes queued before a sink attaches, past which the producer is asked to stop. */
const UNATTACHED_QUEUE_LIMIT = 64 * 1024;

/**
 * The shared machinery of a push source: a queue for bytes that arrive before the sink or while
 * it is paused, the end and failure states, and failure listeners. Producers call `push`, `end`
 * and `fail` (and stop producing while `push` returns false); subclasses say how to resume and
 * cancel their producer.
 */
export abstract class PushBody implements BodySource {
  #sink: BodySink | undefined;
  #queue: Buffer[] | undefined;
  #queued = 0;
  #paused = false;
  #ended = false;
  #failure: Error | undefined;
  #cancelled = false;
  #listeners: ((err: Error) => void)[] | undefined;

  protected abstract resumeProducer(): void;
  protected abstract cancelProducer(reason: Error): void;

  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Producer side: returns false when the producer should stop until `resumeProducer()`. */
  protected push(chunk: Buffer): boolean {
    if (this.#cancelled) return false;
    const sink = this.#sink;
    if (sink !== undefined && this.#queue === undefined && !this.#paused) {
      if (sink.onData(chunk)) return !this.#cancelled;
      this.#paused = true;
      return false;
    }
    (this.#queue ??= []).push(chunk);
    this.#queued += chunk.length;
    return sink === undefined && this.#queued < UNATTACHED_QUEUE_LIMIT;
  }

  protected end(): void {
    if (this.#cancelled || this.#ended || this.#failure) return;
    this.#ended = true;
    if (this.#sink !== undefined && this.#queue === undefined && !this.#paused) this.#sink.onEnd();
  }

  /** A failure reaches an attached sink at once, ahead of queued bytes: it ends the body anyway. */
  protected fail(err: Error): void {
    if (this.#cancelled || this.#ended || this.#failure) return;
    this.#failure = err;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const l of listeners) l(err);
    if (this.#sink !== undefined && !this.#cancelled) {
      this.#queue = undefined;
      this.#sink.onError(err);
    }
  }

  attach(sink: BodySink): void {
    if (this.#sink !== undefined) throw new Error('a body has one consumer');
    this.#sink = sink;
    if (!this.#cancelled) this.#flush();
  }

  resume(): void {
    if (this.#cancelled || !this.#paused) return;
    this.#paused = false;
    this.#flush();
  }

  cancel(reason: Error): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#queue = undefined;
    this.#listeners = undefined;
    if (!this.#ended && this.#failure === undefined) this.cancelProducer(reason);
  }

  onFailure(listener: (err: Error) => void): () => void {
    if (this.#failure) {
      listener(this.#failure);
      return () => undefined;
    }
    if (this.#cancelled || this.#ended) return () => undefined;
    (this.#listeners ??= []).push(listener);
    return () => {
      const i = this.#listeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.#listeners?.splice(i, 1);
    };
  }

  /** Delivers queued chunks until the sink pauses, then the end or failure once reached. */
  #flush(): void {
    const sink = this.#sink as BodySink;
    const queue = this.#queue;
    if (queue !== undefined) {
      while (queue.length > 0) {
        const chunk = queue.shift() as Buffer;
        this.#queued -= chunk.length;
        const more = sink.onData(chunk);
        if (this.#cancelled || this.#queue !== queue) return;
        if (!more) {
          this.#paused = true;
          if (queue.length === 0) this.#queue = undefined;
          return;
        }
      }
      this.#queue = undefined;
    }
    if (this.#failure) sink.onError(this.#failure);
    else if (this.#ended) sink.onEnd();
    else this.resumeProducer();
  }
}

/** A body already in memory, delivered as one chunk. */
export class BufferBody extends PushBody {
  constructor(readonly bytes: Buffer) {
    super();
    if (bytes.length > 0) this.push(bytes);
    this.end();
  }
  protected resumeProducer(): void {}
  protected cancelProducer(): void {}
}

/**
 * Reads a whole body. Over `limit` bytes it cancels the body and rejects with
 * `UpstreamBodyTooLargeError`, the gateway's own limit (not the worker's fault).
 */
export function readAll(body: BodySource, limit = 16 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.attach({
      onData(chunk) {
        size += chunk.length;
        if (size > limit) {
          const err = new UpstreamBodyTooLargeError(limit);
          body.cancel(err);
          reject(err);
          return false;
        }
        chunks.push(chunk);
        return true;
      },
      onEnd: () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
      onError: reject,
    });
  });
}

/** Reads a whole body as UTF-8 text (see `readAll`). */
export async function readAllText(body: BodySource, limit?: number): Promise<string> {
  return (await readAll(body, limit)).toString('utf8');
}

/** Bytes of an unwanted body read and dropped to keep its connection; past this it is cut. */
const DUMP_LIMIT = 64 * 1024;

/**
 * Drops an unwanted body (a retried 5xx): a small one is read to its end so its keep-alive
 * connection can serve the next request; one larger than 64 KiB is cut instead.
 */
export function dumpBody(body: BodySource): void {
  let size = 0;
  body.attach({
    onData(chunk) {
      size += chunk.length;
      if (size <= DUMP_LIMIT) return true;
      body.cancel(new Error('discarded body larger than the dump limit'));
      return false;
    },
    onEnd() {},
    onError() {},
  });
}
