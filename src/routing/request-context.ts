/**
 * Everything a router needs about one inference request, extracted once at the edge: route,
 * parsed body, raw bytes, resolved model, stream flag, request id, and the client's abort signal.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../server/body.js';
import { UNKNOWN_MODEL_ID } from '../workers/worker.js';

/** Inference endpoints, named as SMG's `endpoint` metric label. */
export type Endpoint = 'chat' | 'completion' | 'generate' | 'embeddings' | 'rerank' | 'responses';

export interface RequestContext {
  readonly endpoint: Endpoint;
  /** Path sent to the worker. */
  readonly path: string;
  readonly body: JsonObject;
  /** The bytes to send upstream: the client's own unless the gateway had to change the body. */
  readonly upstreamBody: Buffer;
  /** Canonical model id after alias resolution, or `unknown` when the request named none. */
  readonly model: string;
  readonly stream: boolean;
  readonly requestId: string;
  readonly headers: IncomingHttpHeaders;
  /** Fires when the client disconnects. */
  readonly signal: AbortSignal;
  readonly startTime: number;
}

export interface ContextInput {
  endpoint: Endpoint;
  path: string;
  body: JsonObject;
  raw: Buffer;
  headers: IncomingHttpHeaders;
  signal: AbortSignal;
  aliases: ReadonlyMap<string, string>;
  requestIdHeaders: readonly string[];
}

function pickRequestId(headers: IncomingHttpHeaders, extra: readonly string[]): string {
  for (const name of [...extra, 'x-request-id']) {
    const v = headers[name.toLowerCase()];
    const s = Array.isArray(v) ? v[0] : v;
    if (s) return s;
  }
  return randomUUID();
}

export function buildRequestContext(input: ContextInput): RequestContext {
  const { body } = input;
  const rawModel = body.model;
  if (rawModel !== undefined && typeof rawModel !== 'string') {
    throw new GatewayError('invalid_body', "Field 'model' must be a string");
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    throw new GatewayError('invalid_body', "Field 'stream' must be a boolean");
  }
  const requested = rawModel ?? UNKNOWN_MODEL_ID;
  const canonical = input.aliases.get(requested);
  let upstreamBody = input.raw;
  if (canonical !== undefined) {
    // The engine only knows the canonical id, so an aliased request is rewritten; all others
    // go upstream as the client's exact bytes.
    body.model = canonical;
    upstreamBody = Buffer.from(JSON.stringify(body));
  }
  return {
    endpoint: input.endpoint,
    path: input.path,
    body,
    upstreamBody,
    model: canonical ?? requested,
    stream: body.stream === true,
    requestId: pickRequestId(input.headers, input.requestIdHeaders),
    headers: input.headers,
    signal: input.signal,
    startTime: performance.now(),
  };
}
