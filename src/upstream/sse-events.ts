/**
 * An SSE body rewritten event by event. Only the PD logprob merge needs this; every other
 * stream is relayed as raw bytes. Events are cut at the blank line that ends them, so a rewrite
 * never sees half an event, and bytes are decoded as UTF-8 across chunk boundaries.
 */
import { StringDecoder } from 'node:string_decoder';
import { PushBody, type BodySink, type BodySource } from './body-source.js';

class SseEventMap extends PushBody implements BodySink {
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';

  constructor(
    private readonly inner: BodySource,
    private readonly rewrite: (event: string) => string,
  ) {
    super();
    inner.attach(this);
  }

  onData(chunk: Buffer): boolean {
    this.#pending += this.#decoder.write(chunk);
    let cut = this.#pending.indexOf('\n\n');
    if (cut === -1) return true;
    let text = '';
    while (cut !== -1) {
      text += this.rewrite(this.#pending.slice(0, cut)) + '\n\n';
      this.#pending = this.#pending.slice(cut + 2);
      cut = this.#pending.indexOf('\n\n');
    }
    return this.push(Buffer.from(text));
  }

  onEnd(): void {
    const rest = this.#pending + this.#decoder.end();
    this.#pending = '';
    if (rest !== '') this.push(Buffer.from(rest));
    this.end();
  }

  onError(err: Error): void {
    this.fail(err);
  }

  protected resumeProducer(): void {
    this.inner.resume();
  }

  protected cancelProducer(reason: Error): void {
    this.inner.cancel(reason);
  }
}

/** `body` with each complete SSE event passed through `rewrite`. */
export function mapSseEvents(body: BodySource, rewrite: (event: string) => string): BodySource {
  return new SseEventMap(body, rewrite);
}
