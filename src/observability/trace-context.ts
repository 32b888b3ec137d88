/**
 * The W3C trace context (`traceparent`, `tracestate`; https://www.w3.org/TR/trace-context/) a
 * worker call carries. Over HTTP the client's headers are forwarded as they came
 * (upstream/headers.ts); a gRPC engine gets the same two values as call metadata, so an engine
 * that traces joins the client's trace whichever way the gateway talks to it. With tracing on,
 * `traceparent` names the gateway's own span for the call instead of the client's.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The two W3C trace-context values a call to a worker carries, when there are any. */
export interface TraceHeaders {
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

/**
 * gRPC metadata values must be printable ASCII (grpc-js throws on anything else, which would
 * fail the call); a valid W3C value always is, so anything else is not passed on.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * A W3C traceparent: version 00 exactly as specified; a later version (not the invalid `ff`) may
 * carry more fields after the four. An all-zero trace or parent id is invalid.
 */
const TRACEPARENT =
  /^(?:00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}|(?!ff|00)[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(?:-[\x21-\x7e]*)?)$/;
const ZERO_IDS = /^[0-9a-f]{2}-(?:0{32}-|[0-9a-f]{32}-0{16}-)/;

/**
 * A tracestate the spec requires a vendor to keep is at most 512 characters in at most 32 list
 * members; a longer one may be cut, and here it is not passed on at all. This also keeps a
 * client's header far below the engines' metadata size limits, which would fail the call.
 */
const TRACESTATE_MAX_CHARS = 512;
const TRACESTATE_MAX_MEMBERS = 32;

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(',') : value;
  return text !== undefined && text !== '' && PRINTABLE_ASCII.test(text) ? text : undefined;
}

function validTraceparent(value: string | undefined): string | undefined {
  return value !== undefined && TRACEPARENT.test(value) && !ZERO_IDS.test(value)
    ? value
    : undefined;
}

function boundedTracestate(value: string | undefined): string | undefined {
  if (value === undefined || value.length > TRACESTATE_MAX_CHARS) return undefined;
  return value.split(',').length > TRACESTATE_MAX_MEMBERS ? undefined : value;
}

/**
 * The trace context for a call to a gRPC worker: `traceparent` is the gateway's span when it
 * traces (`ownTraceparent`), else the client's when it is a valid one; `tracestate` is the
 * client's, only alongside a valid client traceparent (the spec ties the two together) and within
 * the sizes above. Undefined when there is neither, the common case, so an untraced request
 * builds nothing.
 */
export function workerTraceContext(
  clientHeaders: IncomingHttpHeaders,
  ownTraceparent?: string,
): TraceHeaders | undefined {
  const clientParent = validTraceparent(headerValue(clientHeaders.traceparent));
  const traceparent = ownTraceparent ?? clientParent;
  const tracestate =
    clientParent === undefined
      ? undefined
      : boundedTracestate(headerValue(clientHeaders.tracestate));
  if (traceparent === undefined && tracestate === undefined) return undefined;
  return { traceparent, tracestate };
}
