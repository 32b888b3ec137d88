/**
 * The route table: method + path -> handler, with the auth class of each route, as SMG's
 * `server.rs::build_app`.
 * A known path with the wrong method is 405; an unknown path is 404. `HEAD` runs the `GET`
 * route (axum's `get()` answers HEAD too); node:http drops the body of a HEAD response.
 * Matching itself is route-matcher.ts.
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
  createConversation,
  deleteConversation,
  getConversation,
  updateConversation,
} from './handlers/conversations.js';
import {
  createConversationItems,
  deleteConversationItem,
  getConversationItem,
  listConversationItems,
} from './handlers/conversation-items.js';
import {
  cancelStoredResponse,
  deleteStoredResponse,
  getStoredResponse,
  listInputItems,
} from './handlers/stored-responses.js';
import { routeMatcher, type RouteMatch } from './route-matcher.js';
import {
  firstAvailablePrefill,
  flushCache,
  getLoads,
  proxyGetToFirstWorker,
} from './handlers/worker-proxy.js';

/**
 * `param` is the route's first path parameter ('' when it has none), `params` all of them in path
 * order, percent-decoded.
 */
export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  param: string,
  params: readonly string[],
) => unknown;

export interface Route {
  readonly method: string;
  /** Exact path, or a pattern where each segment that is exactly `{}` is a parameter. */
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

const WORKER_BY_ID = '/workers/{}';
const TOKENIZER_BY_ID = '/v1/tokenizers/{}';

/**
 * A route over the history store (`app.history`): served the same in every mode, HTTP or gRPC,
 * regular or PD, since it never reaches a worker; data-plane auth, as SMG's.
 */
const history = (method: string, path: string, label: string, handler: Handler): Route => ({
  method,
  path,
  label,
  auth: 'data',
  handler,
});

const RESPONSE = '/v1/responses/{response_id}';
const CONVERSATION = '/v1/conversations/{conversation_id}';
const HISTORY_ROUTES: readonly Route[] = [
  history('GET', '/v1/responses/{}', RESPONSE, getStoredResponse),
  history('DELETE', '/v1/responses/{}', RESPONSE, deleteStoredResponse),
  history('GET', '/v1/responses/{}/input_items', `${RESPONSE}/input_items`, listInputItems),
  history('POST', '/v1/responses/{}/cancel', `${RESPONSE}/cancel`, cancelStoredResponse),
  history('POST', '/v1/conversations', '/v1/conversations', createConversation),
  history('GET', '/v1/conversations/{}', CONVERSATION, getConversation),
  history('POST', '/v1/conversations/{}', CONVERSATION, updateConversation),
  history('DELETE', '/v1/conversations/{}', CONVERSATION, deleteConversation),
  history('GET', '/v1/conversations/{}/items', `${CONVERSATION}/items`, listConversationItems),
  history('POST', '/v1/conversations/{}/items', `${CONVERSATION}/items`, createConversationItems),
  history(
    'GET',
    '/v1/conversations/{}/items/{}',
    `${CONVERSATION}/items/{item_id}`,
    getConversationItem,
  ),
  history(
    'DELETE',
    '/v1/conversations/{}/items/{}',
    `${CONVERSATION}/items/{item_id}`,
    deleteConversationItem,
  ),
];

/**
 * Pure PD mode (`--pd-disaggregation` without `--enable-igw`) answers the probe and info routes
 * as SMG's PD router does; the other modes proxy them to the first available worker.
 */
const pdOr =
  (pd: Handler, other: Handler): Handler =>
  (req, res, app, param, params) =>
    (app.config.pdDisaggregation && !app.config.enableIgw ? pd : other)(
      req,
      res,
      app,
      param,
      params,
    );

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
  ...HISTORY_ROUTES,
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

export type Match = RouteMatch<Route>;

/** The route of a method and path; an exact path's match allocates nothing. */
export const matchRoute: (method: string, pathname: string) => Match = routeMatcher(ROUTES);
