/**
 * A stand-in for ServerResponse that keeps what a relay writes, so a paced sub-request's answer
 * can be merged before the client sees anything. It implements exactly the surface the relays
 * use (head, write with backpressure, end, close events).
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

export class CaptureResponse extends Writable {
  statusCode = 200;
  headersSent = false;
  readonly #headers: OutgoingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];

  override _write(
    chunk: Buffer | string,
    _enc: BufferEncoding,
    done: (err?: Error | null) => void,
  ): void {
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    done();
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    Object.assign(this.#headers, headers ?? {});
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    this.#headers[name.toLowerCase()] = value as string;
    return this;
  }

  getHeader(name: string): OutgoingHttpHeaders[string] {
    return this.#headers[name.toLowerCase()];
  }

  get text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }

  /** Typed as the ServerResponse the relays expect; only the members above are used. */
  asResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}
