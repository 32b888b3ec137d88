/** Gateway process health (`/liveness`, `/health`) and routability (`/readiness`), as SMG. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendText } from '../../errors/respond.js';
import type { AppContext } from '../app-context.js';
import { tokenizersReady } from '../../workers/tokenizer-job.js';

export function liveness(_req: IncomingMessage, res: ServerResponse): void {
  // Stays OK while draining: the process is alive, it just takes no new work.
  sendText(res, 200, 'OK');
}

/**
 * `/readiness`, with the history store's state in every body. A store that is down does not make
 * the gateway unready: only the requests that store or read history need it (they answer 503
 * `history_store_unavailable`), and leaving load balancing would also stop this replica's chat
 * traffic, which never touches the store.
 */
export async function readiness(
  _req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const historyStore = { backend: app.history.backend, reachable: await app.history.reachable() };
  const answer = (status: number, body: Record<string, unknown>): void =>
    sendJson(res, status, { ...body, history_store: historyStore });
  if (app.draining) {
    answer(503, { status: 'not ready', reason: 'draining' });
    return;
  }
  // Only workers that can take this gateway's traffic count: regular workers, or in PD mode at
  // least one ready prefill and one ready decode worker; in IGW mode either.
  const igw = app.config.enableIgw;
  const pd = app.config.pdDisaggregation || igw;
  const pdReady =
    app.registry.ofType('prefill').some((w) => w.isHealthy) &&
    app.registry.ofType('decode').some((w) => w.isHealthy);
  const workers = igw
    ? app.registry.all()
    : pd
      ? [...app.registry.ofType('prefill'), ...app.registry.ofType('decode')]
      : app.registry.ofType('regular');
  const healthy = workers.filter((w) => w.isHealthy).length;
  const regularReady = app.registry.ofType('regular').some((w) => w.isHealthy);
  const ready = igw ? regularReady || pdReady : pd ? pdReady : healthy > 0;
  if (!ready) {
    answer(503, { status: 'not ready', reason: 'insufficient healthy workers' });
    return;
  }
  // SMG's tokenizer gate: every healthy gRPC worker's model has its tokenizer registered
  // (computed per request, so a registration shows at the next probe).
  const tokenizers = app.config.disableTokenizerAutoload ? undefined : app.tokenizers;
  if (!tokenizersReady(app.registry.all(), tokenizers)) {
    answer(503, { status: 'not ready', reason: 'tokenizer not yet registered' });
    return;
  }
  answer(200, { status: 'ready', healthy_workers: healthy, total_workers: workers.length });
}
