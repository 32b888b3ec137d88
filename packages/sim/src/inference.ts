// Inference requests (chat, completions, /generate): read and validate the body, apply the
// request faults, pick the PD leg the request plays on this worker, and hand it to a session.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PdLeg } from './pd-leg.js';
import type { InferenceKind } from './request-parse.js';
import type { SessionContext } from './session.js';
import type { WorkerContext } from './worker-context.js';
import { GenerateSession } from './generate-session.js';
import { readJsonBody, sendJson } from './http-io.js';
import { OpenAiSession } from './openai-session.js';
import { answersOneToken, pickLeg } from './pd-pick.js';
import { readRooms } from './raw-json.js';
import { parseInference } from './request-parse.js';
import { errorBody } from './responses.js';

const ID_PREFIX: Record<InferenceKind, string> = {
  chat: 'chatcmpl',
  completion: 'cmpl',
  generate: 'gen',
};

export async function handleInference(
  w: WorkerContext,
  kind: InferenceKind,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const read = await readJsonBody(req, res);
  if (!read.ok) return;
  const { stats, opts } = w;
  stats.recordPost(path, req.headers, read.body);
  const realistic = opts.engine === 'realistic';
  const parsed = parseInference(kind, read.body, {
    model: opts.model,
    outputTokens: opts.outputTokens,
    eosLength: opts.eosLength,
    blockSize: realistic && opts.prefixCache ? opts.blockSize : undefined,
  });
  const rooms = readRooms(read.raw);
  if (!parsed.ok || !rooms.ok) {
    const message = parsed.ok ? (rooms.ok ? '' : rooms.message) : parsed.message;
    sendJson(res, 400, errorBody(400, message, 'invalid_request_error'));
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
    sendJson(res, status, errorBody(status, 'sim: injected error', 'sim_fault'));
    return;
  }
  const id = `${ID_PREFIX[kind]}-${w.name}-${w.nextRequestNumber()}`;
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
      sendJson(res, 400, errorBody(400, leg, 'invalid_request_error'));
      return;
    }
    pd = leg;
    if (answersOneToken(pd) && plan.maxTokens > 1) {
      plan = { ...plan, maxTokens: 1, finishReason: 'length' };
    }
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
  const session =
    kind === 'generate' ? new GenerateSession(ctx, plan) : new OpenAiSession(ctx, plan);
  if (decision === 'hang') {
    stats.faultsFired++;
    session.hold();
  } else {
    session.run();
  }
}
