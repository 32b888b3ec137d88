/**
 * Everything a router needs about one inference request, extracted once at the edge: route,
 * parsed body, raw bytes, resolved model, stream flag, request id, and the client's abort signal.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Leg, SelectInfo } from '../policies/policy.js';
import type { JsonObject } from '../util/json.js';
import type { Endpoint } from './endpoint.js';
import { endpointLabel } from '../observability/metric-labels.js';
import type { RequestSpan } from '../observability/tracing.js';
import type { ResponsesTurn } from '../responses/responses-turn.js';
import { UNKNOWN_MODEL_ID } from '../workers/worker.js';
import {
  parseRoutingKey,
  parseRoutingTokens,
  parseTargetWorker,
  type HintIgnored,
} from './routing-headers.js';
import { routingText } from './routing-text.js';
import { validateBody } from './validate-body.js';

export interface RequestContext {
  readonly endpoint: Endpoint;
  /** SMG's `endpoint` metric label for the route (`completions`, `other` for embeddings, …). */
  readonly endpointLabel: string;
  /** Path sent to the worker. */
  readonly path: string;
  readonly body: JsonObject;
  /** The bytes to send upstream: the client's own unless the gateway had to change the body. */
  readonly upstreamBody: Buffer;
  /** Canonical model id after alias resolution, or `unknown` when the request named none. */
  readonly model: string;
  /** `model` as a metric label: bounded to announced models, else `other`. */
  readonly modelLabel: string;
  readonly stream: boolean;
  readonly requestId: string;
  readonly headers: IncomingHttpHeaders;
  /**
   * The client's `Authorization` when it is the client's own credential for workers, i.e. not
   * one of the gateway's keys; sent upstream only to a worker that has no key of its own.
   */
  readonly clientAuthorization: string | undefined;
  /** The `Via` sent upstream: the client's entries plus this gateway's loop marker. */
  readonly via: string;
  /** Fires when the client disconnects. */
  readonly signal: AbortSignal;
  readonly startTime: number;
  readonly routingKey: string | undefined;
  readonly targetWorker: number | undefined;
  readonly tokens: readonly number[] | undefined;
  readonly rid: string | undefined;
  /** The request's span with `--enable-trace`; undefined (and never touched) otherwise. */
  readonly trace?: RequestSpan | undefined;
  /** `/v1/responses`: the turn's storage (its body's `input` already holds the history). */
  readonly responses?: ResponsesTurn | undefined;
}

/** What one request brings to its context. */
export interface RequestInput {
  endpoint: Endpoint;
  path: string;
  body: JsonObject;
  raw: Buffer;
  headers: IncomingHttpHeaders;
  /** `Via` for upstream requests (see upstream/hop-marker.ts). */
  via: string;
  signal: AbortSignal;
  /** Decided once at the edge (server/request-id.ts). */
  requestId: string;
  trace?: RequestSpan | undefined;
  /** The client's credential when it is not `Authorization` (Anthropic routes: `x-api-key`). */
  authorization?: string | undefined;
}

/** What every request of one gateway uses to build its context: made once per gateway. */
export interface ContextDeps {
  /** The client's `Authorization` as it may reach a worker (`GatewayAuth.clientCredentialForWorkers`). */
  clientCredential: (authorization: string | undefined) => string | undefined;
  aliases: ReadonlyMap<string, string>;
  /** `--routing-key-headers`, in order. */
  routingKeyHeaders: readonly string[];
  /** Maps the canonical model to its metric label (the registry's `modelLabel`). */
  modelLabel: (model: string) => string;
  /** Told the name of each routing hint header whose value was malformed and dropped. */
  onHintIgnored: HintIgnored;
}

export function buildRequestContext(input: RequestInput, deps: ContextDeps): RequestContext {
  const { body, headers } = input;
  validateBody(input.endpoint, body);
  const requested = typeof body.model === 'string' ? body.model : UNKNOWN_MODEL_ID;
  const canonical = deps.aliases.get(requested);
  let upstreamBody = input.raw;
  if (canonical !== undefined) {
    // The engine only knows the canonical id, so an aliased request is rewritten; all others
    // go upstream as the client's exact bytes. The body's depth was bounded at parse time, so
    // this stringify cannot overflow the stack.
    body.model = canonical;
    upstreamBody = Buffer.from(JSON.stringify(body));
  }
  const model = canonical ?? requested;
  return {
    endpoint: input.endpoint,
    endpointLabel: endpointLabel(input.path),
    path: input.path,
    body,
    upstreamBody,
    model,
    modelLabel: deps.modelLabel(model),
    stream: body.stream === true,
    requestId: input.requestId,
    headers,
    clientAuthorization: deps.clientCredential(input.authorization ?? headers.authorization),
    via: input.via,
    signal: input.signal,
    startTime: performance.now(),
    routingKey: parseRoutingKey(headers, deps.routingKeyHeaders, deps.onHintIgnored),
    targetWorker: parseTargetWorker(headers, deps.onHintIgnored),
    tokens: parseRoutingTokens(headers, deps.onHintIgnored),
    rid: typeof body.rid === 'string' ? body.rid : undefined,
    trace: input.trace,
  };
}

const textCache = new WeakMap<RequestContext, string>();

/**
 * Selection info for one leg. A class so that the lazy `text` getter lives on the prototype: an
 * object literal with a getter is built on V8's slow path, about 1.8 µs per request against
 * tens of ns for this class (bench/micro/request-path.bench.ts).
 */
class LegSelectInfo implements SelectInfo {
  readonly model: string;
  readonly headers: IncomingHttpHeaders;
  readonly routingKey: string | undefined;
  readonly targetWorker: number | undefined;
  readonly tokens: readonly number[] | undefined;
  readonly rid: string | undefined;

  constructor(
    private readonly ctx: RequestContext,
    readonly leg: Leg,
  ) {
    this.model = ctx.model;
    this.headers = ctx.headers;
    this.routingKey = ctx.routingKey;
    this.targetWorker = ctx.targetWorker;
    this.tokens = ctx.tokens;
    this.rid = ctx.rid;
  }

  /** Built once per request, on first read, and shared by its legs. */
  get text(): string {
    let text = textCache.get(this.ctx);
    if (text === undefined) {
      text = routingText(this.ctx.endpoint, this.ctx.body);
      textCache.set(this.ctx, text);
    }
    return text;
  }
}

/** Selection info for one leg; the routing text is built once per request, on first use. */
export function selectInfoFor(ctx: RequestContext, leg: Leg): SelectInfo {
  return new LegSelectInfo(ctx, leg);
}
