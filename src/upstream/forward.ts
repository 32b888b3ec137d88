/**
 * Sending a request to a worker and relaying its answer to the client as bytes. The body is
 * never parsed here: SSE chunks are written through as they arrive, with write backpressure.
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher, Pool } from 'undici';
import { GatewayError } from '../errors/gateway-error.js';
import { endWithError, markEventStream, sendError } from '../errors/respond.js';
import { relayResponseHeaders } from './headers.js';
import { UpstreamBodyTooLargeError, UpstreamDeadlineError } from './errors.js';

/**
 * One attempt's abort signal: fires when the client goes away or when the gateway's request
 * deadline (`--request-timeout-secs`, covering the whole response) passes.
 */
export class AttemptSignal {
  readonly #ac = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #onClientAbort: () => void;
  #deadlinePassed = false;

  constructor(
    private readonly clientSignal: AbortSignal,
    timeoutMs: number,
  ) {
    this.#onClientAbort = () => this.#ac.abort(clientSignal.reason);
    if (clientSignal.aborted) this.#ac.abort(clientSignal.reason);
    else clientSignal.addEventListener('abort', this.#onClientAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#deadlinePassed = true;
      this.#ac.abort(new UpstreamDeadlineError(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#ac.signal;
  }

  get deadlinePassed(): boolean {
    return this.#deadlinePassed;
  }

  /** Aborts the upstream request now (e.g. a failed partner leg). */
  abort(reason: unknown): void {
    this.#ac.abort(reason);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.clientSignal.removeEventListener('abort', this.#onClientAbort);
  }
}

export interface UpstreamRequest {
  pool: Pool;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string | undefined;
  signal: AbortSignal;
}

export function sendUpstream(req: UpstreamRequest): Promise<Dispatcher.ResponseData> {
  return req.pool.request({
    method: req.method,
    path: req.path,
    headers: req.headers,
    body: req.body ?? null,
    signal: req.signal,
  });
}

export type RelayOutcome = 'complete' | 'client_closed' | 'upstream_failed';

export interface RelayHooks {
  /** Extra response headers (request id, routed worker). */
  headers: Record<string, string>;
  /** Called once with the first body chunk: time to first token for streams. */
  onFirstByte?: () => void;
  /** Builds the error the client sees when the worker fails mid-body. */
  midStreamError: (cause: unknown) => GatewayError;
}

export function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  const ct = headers['content-type'];
  return typeof ct === 'string' && ct.startsWith('text/event-stream');
}

/**
 * Writes the upstream head and streams the body to the client. Resolves when the response is
 * over, with how it ended; never rejects.
 */
export function relayResponse(
  upstream: Dispatcher.ResponseData,
  res: ServerResponse,
  hooks: RelayHooks,
): Promise<{ outcome: RelayOutcome; error?: unknown }> {
  const body = upstream.body;
  if (res.destroyed) {
    // The client left between the upstream head and this relay: nothing to write, but the body
    // must still be released so its connection is freed.
    body.on('error', () => undefined);
    body.destroy();
    return Promise.resolve({ outcome: 'client_closed' });
  }
  if (body.destroyed || body.errored) {
    // The worker failed after its head but before this relay started listening (a PD decode
    // waiting for its prefill): its 'error' event is gone, so answer the failure now.
    const cause: unknown = body.errored ?? new Error('upstream body ended before it was relayed');
    sendError(res, hooks.midStreamError(cause));
    return Promise.resolve({ outcome: 'upstream_failed', error: cause });
  }
  const sse = isEventStream(upstream.headers);
  res.writeHead(upstream.statusCode, relayResponseHeaders(upstream.headers, hooks.headers));
  // SSE clients should see the head before the first token arrives.
  if (sse) {
    markEventStream(res);
    res.flushHeaders();
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: RelayOutcome, error?: unknown): void => {
      if (settled) return;
      settled = true;
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve({ outcome, error });
    };
    const onDrain = (): void => {
      body.resume();
    };
    const onClose = (): void => {
      if (!res.writableFinished) {
        body.destroy();
        finish('client_closed');
      }
    };
    if (hooks.onFirstByte) body.once('data', hooks.onFirstByte);
    body.on('data', (chunk: Buffer) => {
      if (!res.write(chunk)) body.pause();
    });
    body.once('end', () => {
      res.end(() => finish('complete'));
    });
    body.once('error', (err: unknown) => {
      if (res.destroyed) {
        finish('client_closed', err);
        return;
      }
      endWithError(res, hooks.midStreamError(err));
      finish('upstream_failed', err);
    });
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * Reads a whole upstream body (cold paths: discovery, admin fan-outs; PD prefill bodies and
 * logprob merges). Over `limit` it throws `UpstreamBodyTooLargeError`, the gateway's own limit.
 */
export async function readBodyText(
  body: Dispatcher.ResponseData['body'],
  limit = 16 * 1024 * 1024,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new UpstreamBodyTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
