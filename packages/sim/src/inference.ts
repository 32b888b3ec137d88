// Inference requests (chat, completions, /generate): read and validate the body, apply the
// request faults, pick the PD leg the request plays on this worker, and hand it to a session.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PdLeg } from './pd-leg.js';
import type { GenerationPlan, InferenceKind } from './request-parse.js';
import type { SessionContext } from './session.js';
import type { WorkerContext } from './worker-context.js';
import { GenerateSession } from './generate-session.js';
import { readJsonBody, sendJson } from './http-io.js';
import { OpenAiSession } from './openai-session.js';
import { readRooms } from './raw-json.js';
import { parseInference } from './request-parse.js';
import { errorBody } from './responses.js';
import { roomTargets, SglangDecodeLeg, SglangPrefillLeg } from './sglang-pd.js';
import { VllmDecodeLeg, VllmPrefillLeg } from './vllm-pd.js';

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
    const leg = pickLeg(w, plan, rooms.rooms, id);
    if (typeof leg === 'string') {
      sendJson(res, 400, errorBody(400, leg, 'invalid_request_error'));
      return;
    }
    pd = leg;
    // An SGLang prefill only runs the prompt: it answers the token its forward pass sampled.
    if (pd instanceof SglangPrefillLeg && plan.maxTokens > 1) {
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

/** The PD leg this request plays here, undefined for none, or a 400 message. */
function pickLeg(
  w: WorkerContext,
  plan: GenerationPlan,
  rooms: string[] | undefined,
  id: string,
): PdLeg | undefined | string {
  const { opts, stats, clock } = w;
  if (opts.runtime === 'vllm') {
    const params = plan.kvTransferParams;
    const connector = opts.kvConnector;
    // Without a connector vLLM ignores kv_transfer_params, and so does the simulator.
    if (params === undefined || connector === undefined) return undefined;
    if (params['do_remote_decode'] === true) {
      return new VllmPrefillLeg(
        w.pins,
        connector,
        params,
        id,
        plan.promptTokens,
        plan.finishReason,
        w.side,
      );
    }
    if (params['do_remote_prefill'] === true) {
      return new VllmDecodeLeg(connector, params, w.kv, stats);
    }
    return undefined;
  }
  // SGLang and TokenSpeed outside a PD role ignore the bootstrap fields.
  if (rooms === undefined || rooms.length === 0 || opts.role === 'regular') return undefined;
  if (opts.role === 'prefill') {
    return new SglangPrefillLeg(w.rooms, rooms, clock, opts.bootstrapTimeoutSecs, stats);
  }
  const targets = roomTargets(rooms, plan.bootstrap?.host, plan.bootstrap?.port);
  if (typeof targets === 'string') return targets;
  return new SglangDecodeLeg(targets, w.kv, clock, opts.waitingTimeoutSecs, stats);
}
