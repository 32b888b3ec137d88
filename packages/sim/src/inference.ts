// Inference requests (chat, completions, /generate, Anthropic Messages, OpenAI Responses): read and
// validate the body, apply the request faults, pick the PD leg the request plays on this worker,
// and hand it to a session. A surface is only how a route reads its body and writes its answer and
// errors; the faults, the PD leg and the engine run are the same for every route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorFormat } from './http-io.js';
import type { PdLeg } from './pd-leg.js';
import type { GenerationPlan, ParseResult, PlanDefaults } from './request-parse.js';
import type { InferenceSession, SessionContext } from './session.js';
import type { WorkerContext } from './worker-context.js';
import { GenerateSession } from './generate-session.js';
import { readJsonBody, sendJson } from './http-io.js';
import { anthropicErrorBody } from './messages-responses.js';
import { parseMessages } from './messages-parse.js';
import { MessagesSession } from './messages-session.js';
import { OpenAiSession } from './openai-session.js';
import { parseResponses } from './responses-api-parse.js';
import { ResponsesSession } from './responses-api-session.js';
import { answersOneToken, pickLeg } from './pd-pick.js';
import { readRooms } from './raw-json.js';
import { capOutput, parseInference } from './request-parse.js';
import { errorBody } from './responses.js';

/** The inference routes a worker serves. */
export type InferenceRoute = 'chat' | 'completion' | 'generate' | 'messages' | 'responses';

interface Surface {
  /** Response ids: `<prefix><worker>-<n>`. */
  idPrefix: string;
  parse(body: unknown, d: PlanDefaults): ParseResult;
  errors: ErrorFormat;
  /** `body` is the request as parsed JSON, for a surface that echoes its fields. */
  session(ctx: SessionContext, plan: GenerationPlan, body: unknown): InferenceSession;
}

const openAi = (ctx: SessionContext, plan: GenerationPlan): InferenceSession =>
  new OpenAiSession(ctx, plan);

const SURFACES: Record<InferenceRoute, Surface> = {
  chat: {
    idPrefix: 'chatcmpl-',
    parse: (body, d) => parseInference('chat', body, d),
    errors: errorBody,
    session: openAi,
  },
  completion: {
    idPrefix: 'cmpl-',
    parse: (body, d) => parseInference('completion', body, d),
    errors: errorBody,
    session: openAi,
  },
  generate: {
    idPrefix: 'gen-',
    parse: (body, d) => parseInference('generate', body, d),
    errors: errorBody,
    session: (ctx, plan) => new GenerateSession(ctx, plan),
  },
  // Anthropic message ids start with msg_; errors are Anthropic's `{type: "error", error}`.
  messages: {
    idPrefix: 'msg_',
    parse: parseMessages,
    errors: anthropicErrorBody,
    session: (ctx, plan) => new MessagesSession(ctx, plan),
  },
  // Response ids start with resp_, as vLLM's and OpenAI's do; errors are OpenAI's.
  responses: {
    idPrefix: 'resp_',
    parse: parseResponses,
    errors: errorBody,
    session: (ctx, plan, body) => new ResponsesSession(ctx, plan, body),
  },
};

export async function handleInference(
  w: WorkerContext,
  route: InferenceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const surface = SURFACES[route];
  const read = await readJsonBody(req, res, surface.errors);
  if (!read.ok) return;
  const { stats, opts } = w;
  stats.recordPost(path, req.headers, read.body);
  const realistic = opts.engine === 'realistic';
  const parsed = surface.parse(read.body, {
    model: opts.model,
    outputTokens: opts.outputTokens,
    eosLength: opts.eosLength,
    blockSize: realistic && opts.prefixCache ? opts.blockSize : undefined,
    runtime: opts.runtime,
  });
  const rooms = readRooms(read.raw);
  if (!parsed.ok || !rooms.ok) {
    const message = parsed.ok ? (rooms.ok ? '' : rooms.message) : parsed.message;
    const status = parsed.ok ? 400 : (parsed.status ?? 400);
    sendJson(res, status, surface.errors(status, message, 'invalid_request_error'));
    return;
  }
  if (rooms.rooms !== undefined) stats.recordRooms(rooms.rooms);
  if (res.destroyed) {
    // The client left between sending its body and now; 'close' has already fired.
    stats.aborted++;
    return;
  }
  const decision = w.faults.decide();
  if (decision === 'error') {
    stats.faultsFired++;
    const status = w.faults.errorStatus();
    sendJson(res, status, surface.errors(status, 'sim: injected error', 'sim_fault'));
    return;
  }
  const id = `${surface.idPrefix}${w.name}-${w.nextRequestNumber()}`;
  let plan = parsed.plan;
  let pd: PdLeg | undefined;
  if (decision === 'none') {
    const leg = pickLeg(w, {
      id,
      promptTokens: plan.promptTokens,
      finishReason: plan.finishReason,
      kvTransferParams: plan.kvTransferParams,
      rooms: rooms.rooms,
      bootstrap: plan.bootstrap,
    });
    if (typeof leg === 'string') {
      sendJson(res, 400, surface.errors(400, leg, 'invalid_request_error'));
      return;
    }
    pd = leg;
    if (answersOneToken(pd) && plan.maxTokens > 1) plan = capOutput(plan, 1);
  }
  const drop = decision === 'none' ? w.faults.takeDrop() : undefined;
  const ctx: SessionContext = {
    res,
    engine: w.engine,
    stats,
    seed: opts.seed,
    meta: { id, created: Math.floor(Date.now() / 1000), model: plan.model },
    dropAfterChunks: typeof drop === 'number' ? drop : undefined,
    dropAfterHead: drop === 'head',
    reportCached: realistic,
    pd,
    closing: w.isClosing,
  };
  const session = surface.session(ctx, plan, read.body);
  if (decision === 'hang') {
    stats.faultsFired++;
    session.hold();
  } else {
    session.run();
  }
}
