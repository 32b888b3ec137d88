/**
 * The only place that writes gateway error bodies. Before headers are sent an error is a JSON
 * envelope with `X-SMG-Error-Code`; after SSE headers are out it becomes one `data:` event and
 * the stream ends, because a status line can no longer change.
 */
import type { ServerResponse } from 'node:http';
import { anthropicErrorBody, anthropicErrorEvent } from './anthropic-errors.js';
import { typeOf } from './catalog.js';
import { GatewayError } from './gateway-error.js';

/**
 * What the gateway records about a response, kept as properties of the response object: a
 * WeakMap or WeakSet entry per response costs about ten times as much to add
 * (bench/micro/request-path.bench.ts).
 */
const MINTED_CODE = Symbol('switchyard.mintedErrorCode');
const EVENT_STREAM = Symbol('switchyard.eventStream');
const ANTHROPIC_ERRORS = Symbol('switchyard.anthropicErrors');

interface MarkedResponse extends ServerResponse {
  /**
   * The error code the gateway itself minted for the response. Kept on the response object, not
   * read back from its `x-smg-error-code` header: a header can also arrive from a worker.
   */
  [MINTED_CODE]?: string;
  [EVENT_STREAM]?: true;
  /** The route speaks Anthropic's API: errors in its shape (anthropic-errors.ts). */
  [ANTHROPIC_ERRORS]?: true;
}

/**
 * Marks a response whose errors must be in Anthropic's shape (the Messages routes): every error
 * written to it afterwards, before or after its head, uses that shape.
 */
export function useAnthropicErrors(res: ServerResponse): void {
  (res as MarkedResponse)[ANTHROPIC_ERRORS] = true;
}

function anthropic(res: ServerResponse): boolean {
  return (res as MarkedResponse)[ANTHROPIC_ERRORS] === true;
}

/** The code the gateway answered this response with, or '' when it minted none. */
export function gatewayErrorCode(res: ServerResponse): string {
  return (res as MarkedResponse)[MINTED_CODE] ?? '';
}

/**
 * Marks a response as carrying an error code the gateway minted: the `X-SMG-Error-Code` header
 * and the `error_code` label of `smg_http_responses_total`. Every writer of a gateway error body
 * (the envelope here, the worker API's `{error, code}`) goes through it, so none is counted as ''.
 */
export function recordErrorCode(res: ServerResponse, code: string): void {
  (res as MarkedResponse)[MINTED_CODE] = code;
  res.setHeader('x-smg-error-code', code);
}

/**
 * Records that a response's head announced `text/event-stream`. Headers given straight to
 * writeHead() are invisible to getHeader(), so whoever writes an SSE head says so here.
 */
export function markEventStream(res: ServerResponse): void {
  (res as MarkedResponse)[EVENT_STREAM] = true;
}

function isEventStreamResponse(res: ServerResponse): boolean {
  return (
    (res as MarkedResponse)[EVENT_STREAM] === true ||
    String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')
  );
}

export function errorBody(err: GatewayError): string {
  return JSON.stringify({
    error: { type: typeOf(err.status), code: err.code, message: err.message, param: null },
  });
}

export function sendError(res: ServerResponse, err: GatewayError): void {
  if (res.headersSent) {
    endWithError(res, err);
    return;
  }
  const body = anthropic(res) ? anthropicErrorBody(err) : errorBody(err);
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  recordErrorCode(res, err.code);
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.writeHead(err.status);
  res.end(body);
}

/** Ends a response whose headers are already out: an SSE error event, or a cut connection. */
export function endWithError(res: ServerResponse, err: GatewayError): void {
  if (res.writableEnded) return;
  if (isEventStreamResponse(res)) {
    res.end(anthropic(res) ? anthropicErrorEvent(err) : `data: ${errorBody(err)}\n\n`);
    return;
  }
  // A JSON body cannot carry an error after its head: cut it so the client sees a truncation
  // instead of a body that parses as a success.
  res.destroy();
}

/** Plain-text answers some SMG routes give (`/v1/models` with no models, router fallbacks). */
export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  for (const [name, v] of Object.entries(headers)) res.setHeader(name, v);
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.writeHead(status);
  res.end(body);
}
