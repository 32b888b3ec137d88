/**
 * Which headers cross the gateway, in each direction (SMG header_utils rules).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/**
 * Client headers SMG forwards, plus Anthropic's API version and beta flags, which a gateway in
 * front of `/v1/messages` must pass on (Claude Code's gateway requirements) and SMG drops; only
 * Anthropic clients send them. `authorization` is decided apart, by `upstreamAuthorization`.
 */
const FORWARDED_REQUEST_HEADERS = new Set([
  'x-request-id',
  'x-correlation-id',
  'traceparent',
  'tracestate',
  'x-smg-routing-key',
  'anthropic-version',
  'anthropic-beta',
]);

export function shouldForwardRequestHeader(name: string): boolean {
  return FORWARDED_REQUEST_HEADERS.has(name) || name.startsWith('x-request-id-');
}

/** The client request behind a call the gateway makes to a worker. */
export interface ClientRequestTrace {
  /** `Via` carrying this gateway's loop marker (upstream/hop-marker.ts). */
  readonly via: string;
  readonly requestId: string;
  /**
   * The client's own credential, already cleared of the gateway's keys, for a worker with no key
   * of its own. Only inference forwards it; the gateway's own calls (probes, proxied GETs,
   * fan-outs) never pass a client's credential on.
   */
  readonly clientAuthorization?: string | undefined;
}

/** What the gateway knows about a request when it forwards it (a subset of RequestContext). */
export interface ForwardedRequest extends ClientRequestTrace {
  readonly headers: IncomingHttpHeaders;
}

/**
 * The `Authorization` a worker receives: its own key (its `api_key`, else `--api-key`) when it
 * has one, so a worker never sees a gateway credential it was not given; otherwise the client's
 * own credential, which the gateway has no key to replace it with.
 */
export function upstreamAuthorization(
  workerApiKey: string | undefined,
  clientAuthorization: string | undefined,
): string | undefined {
  return workerApiKey ? `Bearer ${workerApiKey}` : clientAuthorization;
}

/**
 * The headers of every call the gateway makes to a worker: the worker's key, and when a client
 * request is behind the call, the loop marker and the request id, so the worker's logs carry the
 * id the client got back. Health probes, discovery and load polls have no client request.
 */
export function workerCallHeaders(
  workerApiKey: string | undefined,
  client?: ClientRequestTrace,
): Record<string, string> {
  return addWorkerCallHeaders({}, workerApiKey, client);
}

function addWorkerCallHeaders(
  out: Record<string, string>,
  workerApiKey: string | undefined,
  client: ClientRequestTrace | undefined,
): Record<string, string> {
  const authorization = upstreamAuthorization(workerApiKey, client?.clientAuthorization);
  if (authorization !== undefined) out.authorization = authorization;
  if (client) {
    out.via = client.via;
    out['x-request-id'] = client.requestId;
  }
  return out;
}

/**
 * Headers sent to a worker with an inference request: the forwardable client headers, then
 * `workerCallHeaders` (which override a client's `x-request-id` with the decided id). With
 * tracing on, `traceparent` is the gateway's span for the call, replacing the client's.
 */
export function buildUpstreamHeaders(
  request: ForwardedRequest,
  workerApiKey: string | undefined,
  contentLength: number,
  traceparent?: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  const { headers } = request;
  // `for…in` rather than Object.entries: no array of pairs per request. Node's header object is
  // a plain object with no inherited enumerable keys.
  for (const name in headers) {
    if (!shouldForwardRequestHeader(name)) continue;
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  addWorkerCallHeaders(out, workerApiKey, request);
  if (traceparent !== undefined) out.traceparent = traceparent;
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

/**
 * Header names a `Connection` header nominates as hop-by-hop (RFC 9110 §7.6.1: a proxy removes
 * them before forwarding), lower-cased; undefined when it names none beyond the fixed set.
 */
export function connectionNominated(
  connection: string | string[] | undefined,
): ReadonlySet<string> | undefined {
  // The usual values name nothing beyond the fixed set: answered without splitting.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close')
    return undefined;
  let named: Set<string> | undefined;
  for (const token of (Array.isArray(connection) ? connection.join(',') : connection).split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '' || name === 'close' || HOP_BY_HOP.has(name)) continue;
    (named ??= new Set()).add(name);
  }
  return named;
}

/**
 * The client's headers without those its `Connection` header nominated: they were meant for
 * the gateway's hop only, so the gateway neither forwards nor routes on them. Returns the same
 * object when nothing is nominated (the common case costs no copy).
 */
export function dropConnectionNominated(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const nominated = connectionNominated(headers.connection);
  if (!nominated) return headers;
  const out: IncomingHttpHeaders = {};
  for (const name in headers) if (!nominated.has(name)) out[name] = headers[name];
  return out;
}

/**
 * `x-smg-*` response headers are the gateway's statements about its own answer (error code,
 * routed worker). A worker's copy would pass for one, so only the gateway's own are sent.
 */
const GATEWAY_HEADER_PREFIX = 'x-smg-';

export function relayResponseHeaders(
  upstream: Record<string, string | string[] | undefined>,
  extra: Record<string, string>,
): OutgoingHttpHeaders {
  const nominated = connectionNominated(upstream.connection);
  const out: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (
      value !== undefined &&
      !HOP_BY_HOP.has(name) &&
      !nominated?.has(name) &&
      !name.startsWith(GATEWAY_HEADER_PREFIX)
    ) {
      out[name] = value;
    }
  }
  return Object.assign(out, extra);
}
