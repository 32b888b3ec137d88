/**
 * Routes answered by asking workers directly: GET proxies to the first available worker
 * (`/health_generate`, `/get_server_info`, `/get_model_info`; in PD mode the info routes go to
 * the first available prefill worker), and admin fan-outs to every worker (`/get_loads`,
 * `/flush_cache`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError, sendJson } from '../../errors/respond.js';
import { midStreamGatewayError, transportGatewayError } from '../../upstream/errors.js';
import { isEventStream } from '../../upstream/event-stream.js';
import { callUpstream, type UpstreamHead } from '../../upstream/upstream-call.js';
import type { AnswerLease } from '../../routing/answer.js';
import { writeAnswer } from '../write-answer.js';
import { relayResponseHeaders, workerCallHeaders } from '../../upstream/headers.js';
import type { Worker } from '../../workers/worker.js';
import type { AppContext } from '../app-context.js';
import { clientHeadersOf, requestIdOf } from '../request-id.js';

const FAN_OUT_TIMEOUT_MS = 10_000;

/**
 * Headers of a call made to a worker on behalf of a client request: the worker's key, the loop
 * marker (a worker URL may lead back to this gateway) and the request's id.
 */
export function workerHeaders(
  worker: Worker,
  req: IncomingMessage,
  app: AppContext,
): Record<string, string> {
  return workerCallHeaders(worker.apiKey, {
    via: app.hop.append(clientHeadersOf(req).via),
    requestId: requestIdOf(req),
  });
}

/** Which worker a proxied GET goes to, or the error to answer when there is none. */
export type WorkerPick = (app: AppContext) => Worker | GatewayError;

/** The first available worker (of the type, when given) in registry order, the order of `GET /workers`. */
export function firstAvailable(app: AppContext, type?: Worker['type']): Worker | undefined {
  return (type === undefined ? app.registry.all() : app.registry.ofType(type)).find((w) =>
    w.isAvailable(),
  );
}

const firstAvailableWorker: WorkerPick = (app) =>
  firstAvailable(app) ?? new GatewayError('no_workers', 'No available workers');

/** SMG's PD router answers the info routes from a prefill worker (`proxy_to_first_prefill_worker`). */
export const firstAvailablePrefill: WorkerPick = (app) =>
  firstAvailable(app, 'prefill') ??
  new GatewayError('no_prefill_servers', 'No prefill servers available');

export function proxyGetToFirstWorker(path: string, pick: WorkerPick = firstAvailableWorker) {
  return async (req: IncomingMessage, res: ServerResponse, app: AppContext): Promise<void> => {
    const worker = pick(app);
    if (worker instanceof GatewayError) {
      sendError(res, worker);
      return;
    }
    await relayToWorker(req, res, app, worker, { method: 'GET', path });
  };
}

/** A call relayed for a client: a GET of the gateway's own, or a POST of the client's body. */
export type RelayedCall =
  | { method: 'GET'; path: string }
  | {
      method: 'POST';
      path: string;
      body: Buffer;
      /** The client's forwarded headers (`buildUpstreamHeaders`), body length included. */
      headers: Record<string, string>;
      leases: AnswerLease[];
    };

/**
 * Sends one call to `worker` on behalf of the client's request and relays its answer as it is
 * (status, headers, body or stream), with the routed worker's id; `leases` end with the answer.
 * A client that leaves aborts the call.
 */
export async function relayToWorker(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  worker: Worker,
  call: RelayedCall,
): Promise<void> {
  const leases = call.method === 'POST' ? call.leases : [];
  const pool = app.pools.get(worker.origin);
  if (!pool) {
    for (const l of leases) l.release('upstream_failed');
    sendError(res, new GatewayError('no_workers', 'No available workers'));
    return;
  }
  const client = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) client.abort();
  });
  const post = call.method === 'POST' ? call : undefined;
  const upstream = callUpstream(
    pool,
    {
      method: call.method,
      path: worker.upstreamPath(call.path),
      headers: post?.headers ?? workerHeaders(worker, req, app),
      body: post?.body,
    },
    client.signal,
    app.config.requestTimeoutSecs * 1000,
    app.clock,
  );
  let head: UpstreamHead;
  try {
    head = await upstream.head;
  } catch (err) {
    for (const l of leases) l.release(client.signal.aborted ? 'client_closed' : 'upstream_failed');
    if (!client.signal.aborted) sendError(res, transportGatewayError(err, worker.url));
    return;
  }
  await writeAnswer(res, {
    status: head.status,
    // Last, so the worker's own `x-request-id` never replaces the id the client is answered with.
    headers: relayResponseHeaders(head.headers, {
      'x-smg-routed-worker-id': worker.url,
      'x-request-id': requestIdOf(req),
    }),
    body: head.body,
    eventStream: isEventStream(head.headers),
    routedTo: worker,
    leases,
    midStreamError: (cause) => midStreamGatewayError(cause, worker.url),
  });
}

async function callWorker(
  app: AppContext,
  worker: Worker,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
): Promise<{ ok: boolean; status: number; json: unknown; error?: string }> {
  try {
    const res = await request(worker.upstreamUrl(path), {
      dispatcher: app.workerDispatcher,
      method,
      headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? '{}' : null,
      signal: AbortSignal.timeout(FAN_OUT_TIMEOUT_MS),
    });
    const text = await res.body.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // non-JSON replies (e.g. flush_cache text) are kept as text
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { ok, status: res.statusCode, json, ...(ok ? {} : { error: `HTTP ${res.statusCode}` }) };
  } catch (err) {
    return { ok: false, status: 0, json: null, error: (err as Error).message };
  }
}

/** `GET /get_loads`: polls every worker's `/v1/loads` now (SMG `WorkerLoadsResult`). */
export async function getLoads(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const workers = app.registry.all();
  const results = await Promise.all(
    workers.map((w) =>
      callWorker(
        app,
        w,
        'GET',
        '/v1/loads?include=core,disagg,queues,memory',
        workerHeaders(w, req, app),
      ),
    ),
  );
  const loads = workers.map((w, i) => {
    const r = results[i];
    return {
      worker: w.url,
      worker_type: w.type,
      ...(r?.ok ? { details: r.json } : { details: null, error: r?.error ?? 'unknown' }),
    };
  });
  const successful = results.filter((r) => r.ok).length;
  sendJson(res, 200, {
    loads,
    total_workers: workers.length,
    successful,
    failed: workers.length - successful,
  });
}

/** `POST /flush_cache`: fans out to every HTTP worker (SMG `FlushCacheResult`). */
export async function flushCache(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const workers = app.registry.all();
  const results = await Promise.all(
    workers.map((w) => callWorker(app, w, 'POST', '/flush_cache', workerHeaders(w, req, app))),
  );
  const successful: string[] = [];
  const failed: [string, string][] = [];
  workers.forEach((w, i) => {
    const r = results[i];
    if (r?.ok) successful.push(w.url);
    else failed.push([w.url, r?.error ?? 'unknown']);
  });
  const message =
    failed.length === 0
      ? `Successfully flushed cache on all ${successful.length} workers`
      : `Cache flush completed with ${failed.length} failures out of ${workers.length} workers`;
  sendJson(res, failed.length === 0 ? 200 : 500, {
    successful,
    failed,
    total_workers: workers.length,
    http_workers: workers.length,
    grpc_workers: 0,
    zmq_workers: 0,
    message,
  });
}
