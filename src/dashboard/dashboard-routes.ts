/**
 * The dashboard's routes on the metrics listener: `<path>` (the page), `<path>/assets/<file>`
 * (its script, styles and the vendored uPlot) and `<path>/events` (the frames, as server-sent
 * events). A handler that answers true when the request was one of them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashboardAssets } from './assets.js';
import { BASIC_CHALLENGE, dashboardAccess } from './dashboard-auth.js';
import type { DashboardFeed } from './feed.js';

export interface DashboardRoutesOptions {
  /** Normalised path: a leading slash, no trailing one. */
  readonly path: string;
  readonly feed: DashboardFeed;
  /** Undefined when the package was not built: the page route says how to build it. */
  readonly assets: DashboardAssets | undefined;
  readonly apiKey?: string | undefined;
}

/** The page loads only what the gateway serves; nothing may frame it. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; base-uri 'self'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Tells EventSource how soon to reconnect after the gateway restarts or the link drops. */
const RECONNECT_MS = 2000;

export function dashboardRoutes(
  opts: DashboardRoutesOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const allowed = dashboardAccess(opts.apiKey);
  const base = `${opts.path}/`;
  const page = opts.assets?.indexHtml.replaceAll('{{BASE}}', base);
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path !== opts.path && !path.startsWith(base)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' })
        .end('Method Not Allowed');
      return true;
    }
    if (!allowed(req.headers.authorization)) {
      res
        .writeHead(401, { 'www-authenticate': BASIC_CHALLENGE, 'content-type': 'text/plain' })
        .end('Unauthorized: the dashboard takes the gateway --api-key');
      return true;
    }
    const rest = path.slice(base.length);
    if (path === opts.path || rest === '') {
      if (page === undefined) {
        res
          .writeHead(503, { 'content-type': 'text/plain' })
          .end('The dashboard page is not built: run `npm run build`.');
      } else {
        res
          .writeHead(200, {
            ...PAGE_HEADERS,
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-cache',
          })
          .end(req.method === 'HEAD' ? undefined : page);
      }
      return true;
    }
    if (rest === 'events') {
      serveEvents(opts.feed, req, res);
      return true;
    }
    const asset = rest.startsWith('assets/') ? opts.assets?.files.get(rest.slice(7)) : undefined;
    if (asset) {
      res
        .writeHead(200, {
          ...PAGE_HEADERS,
          'content-type': asset.contentType,
          'content-length': asset.body.length,
          'cache-control': 'no-cache',
        })
        .end(req.method === 'HEAD' ? undefined : asset.body);
      return true;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    return true;
  };
}

function serveEvents(feed: DashboardFeed, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.write(`retry: ${RECONNECT_MS}\n\n`);
  res.write(event('history', feed.historyJson()));
  // A page that does not keep up (a background tab, a slow link) misses frames instead of
  // making the gateway buffer them: a frame is written only when the last one has drained.
  let draining = false;
  res.on('drain', () => (draining = false));
  const unsubscribe = feed.subscribe((_frame, json) => {
    if (draining) return;
    draining = !res.write(event('frame', json));
  });
  res.on('close', unsubscribe);
}

/** One server-sent event; JSON holds no raw newline, so `data` is one line. */
function event(name: string, json: string): string {
  return `event: ${name}\ndata: ${json}\n\n`;
}
