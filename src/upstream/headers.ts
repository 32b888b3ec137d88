/**
 * Which headers cross the gateway, in each direction (SMG header_utils rules, smg-core.md §3.5).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const FORWARDED_REQUEST_HEADERS = new Set([
  'authorization',
  'x-request-id',
  'x-correlation-id',
  'traceparent',
  'tracestate',
  'x-smg-routing-key',
]);

export function shouldForwardRequestHeader(name: string): boolean {
  return FORWARDED_REQUEST_HEADERS.has(name) || name.startsWith('x-request-id-');
}

/**
 * Headers sent to a worker: the forwardable client headers, the request id, and the worker's
 * api key as bearer unless the client sent its own Authorization (the user's wins, no duplicate).
 */
export function buildUpstreamHeaders(
  client: IncomingHttpHeaders,
  requestId: string,
  workerApiKey: string | undefined,
  contentLength: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(client)) {
    if (value === undefined || !shouldForwardRequestHeader(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  out['x-request-id'] = requestId;
  if (out.authorization === undefined && workerApiKey) out.authorization = `Bearer ${workerApiKey}`;
  out['content-type'] = 'application/json';
  out['content-length'] = String(contentLength);
  return out;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are per connection and never relayed. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export function relayResponseHeaders(
  upstream: Record<string, string | string[] | undefined>,
  extra: Record<string, string>,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return Object.assign(out, extra);
}
