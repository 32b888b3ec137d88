/**
 * The inference routes: read the body once, take the `--max-concurrent-requests` permit, parse
 * the body, build the request context, hand it to the router. A client disconnect aborts the
 * context's signal, which aborts every upstream leg.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConcurrencyLimiter } from '../../admission/concurrency-limiter.js';
import type { Lease } from '../../util/lease.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError } from '../../errors/respond.js';
import type { Endpoint } from '../../routing/endpoint.js';
import type { Answer } from '../../routing/answer.js';
import {
  buildRequestContext,
  type ContextDeps,
  type RequestContext,
} from '../../routing/request-context.js';
import { prepareTurn } from '../../responses/prepare-turn.js';
import { storeRelayedAnswer } from '../../responses/store-relayed.js';
import type { AppContext } from '../app-context.js';
import { anthropicCredential } from '../auth.js';
import type { BodyCharge } from '../body-budget.js';
import { parseJsonObject, readChargedBody } from '../body.js';
import { clientHeadersOf, requestIdOf } from '../request-id.js';
import { writeAnswer } from '../write-answer.js';

/** Raised into the request's signal when the client goes away before the response ends. */
export class ClientDisconnectedError extends Error {
  override name = 'ClientDisconnectedError';
}

/**
 * Takes a permit for a request whose body is in. It is taken only then, so a client slow to
 * send (or never finishing) its body cannot hold one; the body read is bounded by
 * `--max-payload-size`, `--request-body-timeout-secs` and `--max-buffered-body-bytes` instead.
 * A queued client that leaves drops out of the queue (the limiter watches `client`).
 */
async function admit(limiter: ConcurrencyLimiter, client: AbortSignal): Promise<Lease> {
  const permit = await limiter.acquire(client);
  // The client may have left between the grant and now: its 'close' has fired already, so
  // nothing else would release the permit.
  if (client.aborted) {
    permit.release();
    throw client.reason;
  }
  return permit;
}

/**
 * An inference-like body under `--max-payload-size`, `--request-body-timeout-secs` and the
 * `--max-buffered-body-bytes` budget, whose bytes `charge` holds until the response is over.
 */
export function readRequestBody(
  req: IncomingMessage,
  charge: BodyCharge,
  app: AppContext,
): Promise<Buffer> {
  return readChargedBody(
    req,
    charge,
    app.config.maxPayloadSize,
    app.config.requestBodyTimeoutSecs * 1000,
    app.bodyBudget.capacity,
    app.clock,
  );
}

/** The context parts every request of one gateway shares, made on its first request. */
const depsByApp = new WeakMap<AppContext, ContextDeps>();

function contextDeps(app: AppContext): ContextDeps {
  let deps = depsByApp.get(app);
  if (deps === undefined) {
    const { auth, registry, metrics } = app;
    deps = {
      clientCredential: (authorization) => auth.clientCredentialForWorkers(authorization),
      aliases: app.aliases,
      routingKeyHeaders: app.config.routingKeyHeaders,
      modelLabel: (model) => registry.modelLabel(model),
      onHintIgnored: (header) => metrics.routingHintIgnored.inc({ header }),
    };
    depsByApp.set(app, deps);
  }
  return deps;
}

/**
 * The router's answer; a Responses answer relayed from an HTTP worker is stored on its way out
 * (the gRPC pipeline stores the responses it makes itself).
 */
async function routed(app: AppContext, ctx: RequestContext): Promise<Answer> {
  const answer = await app.router.route(ctx);
  const turn = ctx.responses;
  if (turn === undefined || answer.routedTo?.connectionMode === 'grpc') return answer;
  return storeRelayedAnswer(answer, turn);
}

export function inferenceHandler(endpoint: Endpoint) {
  // Anthropic clients may send their key as `x-api-key`; it reaches a worker as a bearer token.
  const credential = endpoint === 'messages' ? anthropicCredential : undefined;
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    app: AppContext,
    path: string,
  ): Promise<void> => {
    const client = new AbortController();
    const charge = app.bodyBudget.open();
    // Started before the body is read, so the span covers the body and the admission wait too.
    const trace = app.tracer?.startRequest({
      method: req.method ?? 'POST',
      route: path,
      requestId: requestIdOf(req),
      // Without the headers the client's `Connection` nominated: a traceparent meant for one hop.
      headers: clientHeadersOf(req),
    });
    let permit: Lease | undefined;
    // One listener releases everything the request holds once its response is over, whichever
    // way it ends: the body's bytes (retries resend them until then) and the permit.
    res.on('close', () => {
      if (!res.writableFinished) client.abort(new ClientDisconnectedError('client disconnected'));
      charge.release();
      permit?.release();
    });
    try {
      const raw = await readRequestBody(req, charge, app);
      // Admitted before parsing: parsing a large body is work the limit is there to bound.
      if (app.limiter) permit = await admit(app.limiter, client.signal);
      const headers = clientHeadersOf(req);
      const edge = buildRequestContext(
        {
          endpoint,
          path,
          body: parseJsonObject(raw),
          raw,
          headers,
          via: app.hop.append(headers.via),
          signal: client.signal,
          requestId: requestIdOf(req),
          trace,
          authorization: credential?.(headers),
        },
        contextDeps(app),
      );
      // A Responses request continues what the history store holds, and is stored when done.
      const ctx = endpoint === 'responses' ? await prepareTurn(edge, app.history) : edge;
      trace?.set('gen_ai.request.model', ctx.model);
      const answer = await routed(app, ctx);
      const end = await writeAnswer(res, answer);
      trace?.end(answer.status, end === 'complete' ? undefined : end);
    } catch (err) {
      if (client.signal.aborted) {
        trace?.end(undefined, 'client_closed');
        return;
      }
      const error =
        err instanceof GatewayError
          ? err
          : new GatewayError('internal_error', 'Internal gateway error');
      if (error !== err)
        app.logger.error(
          { err: String(err), stack: (err as Error).stack },
          'unhandled error in inference handler',
        );
      sendError(res, error);
      trace?.end(error.status, error.code);
    }
  };
}
