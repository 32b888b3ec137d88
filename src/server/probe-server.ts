/**
 * The `--health-check-port` listener, as SMG's probe router (health.rs): `/liveness`,
 * `/readiness` and `/health` only, with the same answers as on the main port, and nothing else.
 * It stays up through the shutdown drain (readiness then answers 503 draining), so an
 * orchestrator pointed at it sees the gateway leave rotation instead of a refused connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppContext } from './app-context.js';
import { liveness, readiness } from './handlers/health.js';

type Probe = (req: IncomingMessage, res: ServerResponse, app: AppContext) => unknown;

const PROBES: ReadonlyMap<string, Probe> = new Map<string, Probe>([
  ['/liveness', liveness],
  ['/readiness', readiness],
  ['/health', liveness],
]);

/**
 * SMG's probe router has no middleware and no fallback body: an unknown path is a bare 404, and
 * HEAD is answered like GET (axum's `get()`), which Node does by sending the head without body.
 * Probes run no auth, so nothing here may reveal more than the main port's public probes do.
 */
export function createProbeServer(app: AppContext): Server {
  return createServer((req, res) => {
    const probe = PROBES.get((req.url ?? '/').split('?', 1)[0] ?? '/');
    if (probe === undefined) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 }).end();
      return;
    }
    // Readiness awaits the history store; a probe that fails still answers, and never hangs.
    Promise.resolve(probe(req, res, app)).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-length': 0 });
      res.end();
    });
  });
}
