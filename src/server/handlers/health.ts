/** Gateway process health (`/liveness`, `/health`) and routability (`/readiness`), as SMG. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendText } from '../../errors/respond.js';
import type { AppContext } from '../app-context.js';

export function liveness(_req: IncomingMessage, res: ServerResponse): void {
  // Stays OK while draining: the process is alive, it just takes no new work.
  sendText(res, 200, 'OK');
}

export function readiness(_req: IncomingMessage, res: ServerResponse, app: AppContext): void {
  if (app.draining) {
    sendJson(res, 503, { status: 'not ready', reason: 'draining' });
    return;
  }
  const workers = app.registry.all();
  const healthy = workers.filter((w) => w.isHealthy).length;
  if (healthy === 0) {
    sendJson(res, 503, { status: 'not ready', reason: 'insufficient healthy workers' });
    return;
  }
  sendJson(res, 200, { status: 'ready', healthy_workers: healthy, total_workers: workers.length });
}
