/**
 * The route table: method + path -> handler, with the auth class of each route, as SMG's
 * `server.rs::build_app`.
 * A known path with the wrong method is 405; an unknown path is 404. `HEAD` runs the `GET`
 * route (axum's `get()` answers HEAD too); node:http drops the body of a HEAD response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from './app-context.js';
import type { AuthClass } from './auth.js';
import { liveness, readiness } from './handlers/health.js';
import { countTokens } from './handlers/count-tokens.js';
import { inferenceHandler } from './handlers/inference.js';
import { listModels } from './handlers/models.js';
import { createWorker, listWorkers, workerById } from './handlers/workers-admin.js';
import { parseFunctionCall, parseReasoning } from './handlers/parse-admin.js';
import { pdHealthGenerate } from './handlers/pd-health-generate.js';
import { detokenize, tokenize } from './handlers/tokenize.js';
import {
  addTokenizer,
  listTokenizers,
  tokenizerById,
  tokenizerStatus,
} from './handlers/tokenizers-admin.js';
import {
  firstAvailablePrefill,
  flushCache,
  getLoads,
  proxyGetToFirstWorker,
} from './handlers/worker-proxy.js';

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  param: string,
) => unknown;

export interface Route {
  readonly method: string;
  /**
   * Exact path; or a prefix ending in `/` whose remainder is the route's one parameter; or
   * `prefix/{}/last`, whose second-to-last segment is the parameter.
   */
  readonly path: string;
  /** Bounded label for HTTP metrics. */
  readonly label: string;
  readonly auth: AuthClass;
  /**
   * `anthropic`: the route speaks Anthropic's API, so its errors are in Anthropic's shape and
   * its clients' `x-api-key` header is read as their credential.
   */
  readonly api?: 'anthropic';
  readonly handler: Handler;
}

const inference = (
  path: string,
  endpoint: Parameters<typeof inferenceHandler>[0],
  upstreamPath = path,
): Route => {
  const handle = inferenceHandler(endpoint);
  return {
    method: 'POST',
    path,
    label: path,
    auth: 'data',
    handler: (req, res, app) => handle(req, res, app, upstreamPath),
  };
};

const get = (path: string, auth: AuthClass, handler: Handler): Route => ({
  method: 'GET',
  path,
  label: path,
  auth,
  handler,
});

const WORKER_BY_ID = '/workers/';
const TOKENIZER_BY_ID = '/v1/tokenizers/';

/**
 * Pure PD mode (`--pd-disaggregation` without `--enable-igw`) answers the probe and info routes
 * as SMG's PD router does; the other modes proxy them to the first available worker.
 */
const pdOr =
  (pd: Handler, other: Handler): Handler =>
  (req, res, app, param) =>
    (app.config.pdDisaggregation && !app.config.enableIgw ? pd : other)(req, res, app, param);

const infoRoute = (path: string): Handler =>
  pdOr(proxyGetToFirstWorker(path, firstAvailablePrefill), proxyGetToFirstWorker(path));

export const ROUTES: readonly Route[] = [
  inference('/v1/chat/completions', 'chat'),
  { ...inference('/v1/messages', 'messages'), api: 'anthropic' },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    label: '/v1/messages/count_tokens',
    auth: 'data',
    api: 'anthropic',
    handler: countTokens,
  },
  inference('/v1/completions', 'completion'),
  inference('/generate', 'generate'),
  inference('/v1/embeddings', 'embeddings'),
  inference('/v1/rerank', 'rerank'),
  inference('/rerank', 'rerank'),
  inference('/v1/responses', 'responses'),
  get('/v1/models', 'public', listModels),
  get('/liveness', 'public', liveness),
  get('/health', 'public', liveness),
  get('/readiness', 'public', readiness),
  get(
    '/health_generate',
    'public',
    pdOr(pdHealthGenerate, proxyGetToFirstWorker('/health_generate')),
  ),
  get('/get_server_info', 'public', infoRoute('/get_server_info')),
  get('/get_model_info', 'public', infoRoute('/get_model_info')),
  get('/get_loads', 'admin', getLoads),
  {
    method: 'POST',
    path: '/flush_cache',
    label: '/flush_cache',
    auth: 'admin',
    handler: flushCache,
  },
  {
    method: 'POST',
    path: '/parse/function_call',
    label: '/parse/function_call',
    auth: 'admin',
    handler: parseFunctionCall,
  },
  {
    method: 'POST',
    path: '/parse/reasoning',
    label: '/parse/reasoning',
    auth: 'admin',
    handler: parseReasoning,
  },
  { method: 'POST', path: '/v1/tokenize', label: '/v1/tokenize', auth: 'data', handler: tokenize },
  {
    method: 'POST',
    path: '/v1/detokenize',
    label: '/v1/detokenize',
    auth: 'data',
    handler: detokenize,
  },
  get('/v1/tokenizers', 'admin', listTokenizers),
  {
    method: 'POST',
    path: '/v1/tokenizers',
    label: '/v1/tokenizers',
    auth: 'admin',
    handler: addTokenizer,
  },
  ...['GET', 'DELETE'].map((method): Route => ({
    method,
    path: TOKENIZER_BY_ID,
    label: '/v1/tokenizers/{tokenizer_id}',
    auth: 'admin',
    handler: tokenizerById,
  })),
  {
    ...get('/v1/tokenizers/{}/status', 'admin', tokenizerStatus),
    label: '/v1/tokenizers/{tokenizer_id}/status',
  },
  get('/workers', 'admin', listWorkers),
  { method: 'POST', path: '/workers', label: '/workers', auth: 'admin', handler: createWorker },
  ...['GET', 'PUT', 'PATCH', 'DELETE'].map((method): Route => ({
    method,
    path: WORKER_BY_ID,
    label: '/workers/{worker_id}',
    auth: 'admin',
    handler: workerById,
  })),
];

export type Match =
  | { readonly kind: 'route'; readonly route: Route; readonly param: string }
  | { readonly kind: 'method_not_allowed'; readonly allowed: string[]; readonly label: string }
  | { readonly kind: 'not_found' };

/** A `prefix/{}/last` route: the parameter is the segment before a fixed last one. */
const INNER_PARAM = '{}/';
const hasInnerParam = (path: string): boolean => path.includes(INNER_PARAM);

/**
 * Exact paths, `prefix/{param}` and `prefix/{param}/last` routes, grouped once at load: matching
 * is a few map reads.
 */
const BY_PATH = new Map<string, Route[]>();
const BY_PREFIX = new Map<string, Route[]>();
const BY_INNER = new Map<string, Route[]>();
for (const route of ROUTES) {
  const table = hasInnerParam(route.path)
    ? BY_INNER
    : route.path.endsWith('/')
      ? BY_PREFIX
      : BY_PATH;
  table.set(route.path, [...(table.get(route.path) ?? []), route]);
}

/** The match of each exact path and method, made once: matching one allocates nothing. */
const EXACT = new Map<string, Map<string, Match>>();
for (const route of ROUTES) {
  if (route.path.endsWith('/') || hasInnerParam(route.path)) continue;
  let byMethod = EXACT.get(route.path);
  if (byMethod === undefined) {
    byMethod = new Map();
    EXACT.set(route.path, byMethod);
  }
  byMethod.set(route.method, { kind: 'route', route, param: '' });
}

function decodeParam(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    // Malformed percent-encoding: no such resource (never a thrown error in the request handler).
    return undefined;
  }
}

export function matchRoute(method: string, pathname: string): Match {
  const exact = EXACT.get(pathname)?.get(method);
  if (exact !== undefined) return exact;
  let routes = BY_PATH.get(pathname);
  let param = '';
  if (!routes) {
    const cut = pathname.lastIndexOf('/') + 1;
    const prefix = pathname.slice(0, cut);
    const rest = pathname.slice(cut);
    const decoded = rest === '' ? undefined : decodeParam(rest);
    routes = decoded === undefined ? undefined : BY_PREFIX.get(prefix);
    param = decoded ?? '';
    if (!routes && cut > 1) {
      // `prefix/{param}/last`: the parameter is the segment before the last one.
      const start = pathname.lastIndexOf('/', cut - 2) + 1;
      const inner = BY_INNER.get(`${pathname.slice(0, start)}${INNER_PARAM}${rest}`);
      const value =
        inner === undefined || start === cut - 1
          ? undefined
          : decodeParam(pathname.slice(start, cut - 1));
      if (value !== undefined) {
        routes = inner;
        param = value;
      }
    }
  }
  if (!routes) return { kind: 'not_found' };
  const route =
    routes.find((r) => r.method === method) ??
    (method === 'HEAD' ? routes.find((r) => r.method === 'GET') : undefined);
  if (route) return { kind: 'route', route, param };
  const allowed = routes.map((r) => r.method);
  if (allowed.includes('GET')) allowed.push('HEAD');
  return { kind: 'method_not_allowed', allowed, label: routes[0]?.label ?? '' };
}
