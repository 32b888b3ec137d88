/**
 * `POST /v1/messages/count_tokens` (Anthropic's token count, which Claude Code calls before it
 * sends a long conversation). A model whose tokenizer the gateway holds (gRPC workers) is counted
 * here, exactly as its Messages request would be rendered and encoded, without a worker; a model
 * served over HTTP is relayed to one of its workers, which SGLang and vLLM serve the route on.
 * SMG has no such route (404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError, sendJson } from '../../errors/respond.js';
import { messagesPlan } from '../../grpc/messages/messages-plan.js';
import { preparePrompt, tokenizerNotFound } from '../../grpc/prepare.js';
import { validateMessages } from '../../routing/validate-messages.js';
import { connectionModeOf } from '../../routing/select-regular.js';
import { buildUpstreamHeaders } from '../../upstream/headers.js';
import { WORKER_TYPES, type Worker } from '../../workers/worker.js';
import type { AppContext } from '../app-context.js';
import { anthropicCredential } from '../auth.js';
import { parseJsonObject } from '../body.js';
import { clientHeadersOf, requestIdOf } from '../request-id.js';
import { readRequestBody } from './inference.js';
import { relayToWorker } from './worker-proxy.js';

export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

/** The model's available worker with the least in flight, of any type; gRPC ones separately. */
function workersOf(app: AppContext, model: string): { http: Worker | undefined; grpc: boolean } {
  let http: Worker | undefined;
  let grpc = false;
  for (const type of WORKER_TYPES) {
    for (const w of app.registry.forModel(model, type)) {
      if (connectionModeOf(w) === 'grpc') {
        grpc = true;
        continue;
      }
      if (w.isAvailable() && (http === undefined || w.load < http.load)) http = w;
    }
  }
  return { http, grpc };
}

export async function countTokens(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const charge = app.bodyBudget.open();
  res.on('close', () => charge.release());
  try {
    const raw = await readRequestBody(req, charge, app);
    const body = parseJsonObject(raw);
    validateMessages(body, { countOnly: true });
    const requested = body.model as string;
    const model = app.aliases.get(requested) ?? requested;
    const tokenizer = app.tokenizers.get(model);
    if (tokenizer !== undefined) {
      const prepared = preparePrompt(messagesPlan(body, false), tokenizer);
      sendJson(res, 200, { input_tokens: prepared.inputIds.length });
      return;
    }
    const { http, grpc } = workersOf(app, model);
    if (http === undefined) {
      if (grpc) throw tokenizerNotFound(model);
      throw new GatewayError('model_not_found', `No worker available for model '${model}'`);
    }
    // The engine knows only the canonical id.
    const upstream = model === requested ? raw : Buffer.from(JSON.stringify({ ...body, model }));
    // As `/v1/messages` forwards them: the Anthropic headers, and an `x-api-key` that is the
    // client's own credential (no `--api-key`) for a worker without a key.
    const headers = clientHeadersOf(req);
    const forwarded = {
      headers,
      via: app.hop.append(headers.via),
      requestId: requestIdOf(req),
      clientAuthorization: app.auth.clientCredentialForWorkers(anthropicCredential(headers)),
    };
    await relayToWorker(req, res, app, http, {
      method: 'POST',
      path: COUNT_TOKENS_PATH,
      body: upstream,
      headers: buildUpstreamHeaders(forwarded, http.apiKey, upstream.length),
      leases: [http.acquireLoad()],
    });
  } catch (err) {
    if (res.destroyed) return;
    const error =
      err instanceof GatewayError
        ? err
        : new GatewayError('internal_error', 'Internal gateway error');
    if (error !== err) app.logger.error({ err: String(err) }, 'count_tokens failed');
    sendError(res, error);
  }
}
