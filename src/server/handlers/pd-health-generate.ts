/**
 * `GET /health_generate` in PD mode, as SMG's PD router answers it: one prefill and one decode
 * worker are each asked `GET /health_generate` at the same time (the probe makes the engine
 * generate, so only one pair is tested), and the gateway answers 200 with a text line naming the
 * pair, or 503 `health_generate_failed` listing what failed. Proxying to a single worker would
 * only test one side of the pair.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request, type Dispatcher } from 'undici';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError, sendText } from '../../errors/respond.js';
import type { Worker } from '../../workers/worker.js';
import type { AppContext } from '../app-context.js';
import { firstAvailable, workerHeaders } from './worker-proxy.js';

/** Why probing one worker failed, worded as SMG's, or undefined when it answered 2xx. */
async function probe(
  dispatcher: Dispatcher,
  worker: Worker,
  role: 'Prefill' | 'Decode',
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const res = await request(worker.upstreamUrl('/health_generate'), {
      dispatcher,
      method: 'GET',
      headers,
      signal,
    });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 300
      ? undefined
      : `${role} ${worker.url} returned status ${res.statusCode}`;
  } catch (err) {
    return `${role} ${worker.url} error: ${err instanceof Error ? err.message : String(err)}`;
  }
}

export async function pdHealthGenerate(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const prefill = firstAvailable(app, 'prefill');
  const decode = firstAvailable(app, 'decode');
  if (!prefill || !decode) {
    const missing = !prefill ? 'prefill' : 'decode';
    sendError(
      res,
      new GatewayError(
        'no_healthy_worker_pair',
        `No healthy worker pair available: no available ${missing} worker`,
      ),
    );
    return;
  }
  const client = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) client.abort();
  });
  // A cold path: the deadline rides on a signal of its own.
  const signal = AbortSignal.any([
    client.signal,
    AbortSignal.timeout(app.config.requestTimeoutSecs * 1000),
  ]);
  const failures = await Promise.all([
    probe(app.workerDispatcher, prefill, 'Prefill', workerHeaders(prefill, req, app), signal),
    probe(app.workerDispatcher, decode, 'Decode', workerHeaders(decode, req, app), signal),
  ]);
  if (client.signal.aborted) return;
  const errors = failures.filter((f): f is string => f !== undefined);
  if (errors.length === 0) {
    sendText(
      res,
      200,
      `Health generate passed on selected pair: prefill=${prefill.url}, decode=${decode.url}`,
    );
    return;
  }
  sendError(
    res,
    new GatewayError('health_generate_failed', `Health generate failed: ${JSON.stringify(errors)}`),
  );
}
