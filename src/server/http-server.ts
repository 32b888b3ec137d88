/**
 * The client-facing node:http server: route dispatch, auth, per-request HTTP metrics, and the
 * in-flight count that graceful shutdown waits on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import { gatewayErrorCode, sendError, useAnthropicErrors } from '../errors/respond.js';
import { anthropicCredential } from './auth.js';
import type { AppContext } from './app-context.js';
import { createCorsPolicy } from './cors.js';
import { HttpIngressMetrics } from './http-metrics.js';
import { assignRequestId, requestIdHeaderNames } from './request-id.js';
import { matchRoute, type Handler } from './routes.js';

function internalError(app: AppContext, res: ServerResponse, err: unknown): void {
  app.logger.error({ err: String(err), stack: (err as Error).stack }, 'handler failed');
  sendError(res, new GatewayError('internal_error', 'Internal gateway error'));
}

/**
 * Node's own limits on receiving a request. Node answers a bare `408` and closes when
 * `requestTimeout` passes, so it is set past the longest a request can take under the
 * gateway's limits (headers within `headersTimeout`, then the body within the body deadline):
 * the gateway's JSON `408 request_body_timeout` always comes first and Node's stays a backstop.
 */
export function clientTimeouts(bodyDeadlineMs: number): {
  keepAliveTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
} {
  // Above common load-balancer idle timeouts (60 s), so the LB never reuses a socket we closed.
  const keepAliveTimeout = 65_000;
  const headersTimeout = 66_000;
  return {
    keepAliveTimeout,
    headersTimeout,
    requestTimeout: headersTimeout + bodyDeadlineMs + 5_000,
  };
}

export interface GatewayServer {
  readonly server: Server;
  /** Requests whose response has not finished yet. */
  inflight(): number;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
}

export function createGatewayServer(app: AppContext): GatewayServer {
  let inflight = 0;
  let idleWaiters: (() => void)[] = [];
  const { metrics } = app;
  const ingress = new HttpIngressMetrics(metrics);
  const requestIdHeaders = requestIdHeaderNames(app.config.requestIdHeaders);
  const cors = createCorsPolicy(app.config.corsAllowedOrigins);

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // Outermost, as SMG's CORS layer: its headers are on every answer below, and a preflight is
    // answered here, before request ids, metrics, routing and auth (server/cors.ts).
    if (cors.handle(req, res)) return;
    const start = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    // First, so every answer below (gateway errors included) carries `x-request-id`, as SMG's.
    assignRequestId(req, res, requestIdHeaders, pathname);
    const match = matchRoute(method, pathname);
    const label =
      match.kind === 'route'
        ? match.route.label
        : match.kind === 'method_not_allowed'
          ? match.label
          : 'other';
    const series = ingress.series(method, label);
    inflight += 1;
    series.requests.inc();
    // `on`, not `once`: 'close' is a stream's last event, emitted once (Node's stream docs).
    res.on('close', () => {
      inflight -= 1;
      series.duration.observe((performance.now() - start) / 1000);
      // A response the client abandoned was never delivered: nginx's 499, not Node's default 200.
      series.responses
        .child(res.writableFinished ? res.statusCode : 499, gatewayErrorCode(res))
        .inc();
      if (inflight === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const w of waiters) w();
      }
    });
    if (match.kind === 'not_found') {
      sendError(res, new GatewayError('not_found', `No route for ${method} ${pathname}`));
      return;
    }
    if (match.kind === 'method_not_allowed') {
      res.setHeader('allow', match.allowed.join(', '));
      sendError(
        res,
        new GatewayError('method_not_allowed', `Method ${method} is not allowed on ${pathname}`),
      );
      return;
    }
    if (app.hop.seenIn(req.headers.via)) {
      // Answered before auth: a looped request carries the key this gateway gave its "worker".
      sendError(
        res,
        new GatewayError(
          'loop_detected',
          'Request loop detected: this request already passed through this gateway',
          { retryable: false },
        ),
      );
      return;
    }
    const anthropic = match.route.api === 'anthropic';
    if (anthropic) useAnthropicErrors(res);
    const access = app.auth.check(
      anthropic ? anthropicCredential(req.headers) : req.headers.authorization,
      match.route.auth,
      method,
    );
    if (access === 'unauthorized') {
      sendError(
        res,
        new GatewayError('unauthorized', 'Missing or invalid API key', {
          headers: { 'www-authenticate': 'Bearer' },
        }),
      );
      return;
    }
    if (access === 'forbidden') {
      sendError(
        res,
        new GatewayError('forbidden', 'Admin role required for this control plane operation'),
      );
      return;
    }
    if (app.draining) {
      // Keep-alive connections opened before shutdown still deliver requests: answer probes,
      // refuse new work, and close each connection after its response.
      res.setHeader('connection', 'close');
      if (match.route.auth === 'data') {
        sendError(
          res,
          new GatewayError('shutting_down', 'Gateway is shutting down', { retryable: false }),
        );
        return;
      }
    }
    // The inference handler takes its `--max-concurrent-requests` permit itself, once the body
    // is in: a client slow to send its body must not hold a permit (handlers/inference.ts).
    run(match.route.handler, req, res, match.param, match.params);
  };

  const run = (
    handler: Handler,
    req: IncomingMessage,
    res: ServerResponse,
    param: string,
    params: readonly string[],
  ): void => {
    try {
      const done = handler(req, res, app, param, params);
      if (done instanceof Promise) done.catch((err: unknown) => internalError(app, res, err));
    } catch (err) {
      internalError(app, res, err);
    }
  };

  const server = createServer(clientTimeouts(app.config.requestBodyTimeoutSecs * 1000), handle);
  server.on('connection', (socket) => {
    metrics.httpConnectionsActive.inc();
    socket.once('close', () => metrics.httpConnectionsActive.dec());
  });

  return {
    server,
    inflight: () => inflight,
    idle: () =>
      inflight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => idleWaiters.push(resolve)),
  };
}
