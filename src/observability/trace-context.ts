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

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(',') : value;
  return text !== undefined && text !== '' && PRINTABLE_ASCII.test(text) ? text : undefined;
}

/**
 * The trace context for a call to a worker: `traceparent` is the gateway's span when it traces
 * (`ownTraceparent`), else the client's; `tracestate` is always the client's. Undefined when
 * there is neither, the common case, so an untraced request builds nothing.
 */
export function workerTraceContext(
  clientHeaders: IncomingHttpHeaders,
  ownTraceparent?: string,
): TraceHeaders | undefined {
  const traceparent = ownTraceparent ?? headerValue(clientHeaders.traceparent);
  const tracestate = headerValue(clientHeaders.tracestate);
  if (traceparent === undefined && tracestate === undefined) return undefined;
  return { traceparent, tracestate };
}
