/**
 * Pacing a plan wider than the decode's running window (issue 7, review finding 4 of
 * pd-protocols §3.B): instead of refusing a batch that needs more rooms than the window can
 * ever hold, it is split into chunks of at most `window` items, sent one chunk at a time (each a
 * normal PD dispatch with fresh rooms, inside the request's one claim and one prefill slot), and
 * the answers are merged into the single response the client asked for. Non-streaming requests
 * only: a merged stream would need its events re-indexed on the fly.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import { sendJson } from '../errors/respond.js';
import type { AttemptResult } from '../routing/retry.js';
import type { RequestContext } from '../routing/request-context.js';
import type { JsonObject } from '../server/body.js';
import { CaptureResponse } from './capture-response.js';
import { dispatchParallel, type Pair, type PdDeps } from './parallel.js';

/** The batch split into bodies of at most `size` items, or undefined when it cannot be split. */
export function splitPlan(
  endpoint: RequestContext['endpoint'],
  body: JsonObject,
  size: number,
): JsonObject[] | undefined {
  const chunks = <T>(items: readonly T[]): T[][] => {
    const out: T[][] = [];
    for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
    return out;
  };
  if (endpoint === 'generate' && Array.isArray(body.text))
    return chunks(body.text).map((text) => ({ ...body, text }));
  if (endpoint === 'generate' && Array.isArray(body.input_ids))
    return chunks(body.input_ids).map((ids) => ({ ...body, input_ids: ids }));
  if (endpoint === 'completion' && Array.isArray(body.prompt))
    return chunks(body.prompt).map((prompt) => ({ ...body, prompt }));
  if (endpoint === 'chat' && typeof body.n === 'number') {
    // Chunk sizes by arithmetic: nothing is allocated per sample.
    const n = body.n;
    const out: JsonObject[] = [];
    for (let left = n; left > 0; left -= size) out.push({ ...body, n: Math.min(size, left) });
    return out;
  }
  return undefined;
}

type Json = Record<string, unknown>;

/** Merges the chunk answers: arrays concatenate; OpenAI choices are re-indexed, usage summed. */
export function mergePlan(
  endpoint: RequestContext['endpoint'],
  parts: readonly unknown[],
): unknown {
  if (endpoint === 'generate')
    return parts.flatMap((p): unknown[] => (Array.isArray(p) ? (p as unknown[]) : [p]));
  const docs = parts as Json[];
  const first = { ...(docs[0] ?? {}) };
  const choices: Json[] = [];
  let completion = 0;
  let prompt = 0;
  for (const doc of docs) {
    for (const c of (doc.choices as Json[] | undefined) ?? [])
      choices.push({ ...c, index: choices.length });
    const usage = doc.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
    completion += usage?.completion_tokens ?? 0;
    // Chat samples share one prompt; completion chunks each bring their own prompts.
    prompt =
      endpoint === 'chat' ? (usage?.prompt_tokens ?? prompt) : prompt + (usage?.prompt_tokens ?? 0);
  }
  first.choices = choices;
  if (first.usage !== undefined)
    first.usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    };
  return first;
}

export async function dispatchPaced(
  ctx: RequestContext,
  pair: Pair,
  res: ServerResponse,
  deps: PdDeps,
  window: number,
): Promise<AttemptResult> {
  const bodies = splitPlan(ctx.endpoint, ctx.body, window);
  if (!bodies || ctx.stream) {
    const error = new GatewayError(
      'invalid_body',
      `This request needs more decode rooms than the running window (${window}) and cannot be paced${ctx.stream ? ' while streaming' : ''}; send at most ${window} items or samples per request`,
      { retryable: false },
    );
    return { kind: 'fail', error };
  }
  const answers: unknown[] = [];
  let routed: string | undefined;
  for (const body of bodies) {
    const capture = new CaptureResponse();
    const sub: RequestContext = { ...ctx, body, upstreamBody: Buffer.from(JSON.stringify(body)) };
    const result = await dispatchParallel(sub, pair, capture.asResponse(), deps);
    if (result.kind !== 'done') return result;
    if (ctx.signal.aborted) return { kind: 'done' };
    if (capture.statusCode !== 200) {
      return {
        kind: 'fail',
        error: new GatewayError(
          'decode_error',
          `a paced chunk failed with ${capture.statusCode}: ${capture.text.slice(0, 300)}`,
          { status: capture.statusCode },
        ),
      };
    }
    routed = String(capture.getHeader('x-smg-routed-worker-id') ?? routed ?? '');
    try {
      answers.push(JSON.parse(capture.text));
    } catch {
      return {
        kind: 'fail',
        error: new GatewayError(
          'decode_read_failed',
          'a paced chunk ended before its answer was complete',
        ),
      };
    }
  }
  sendJson(res, 200, mergePlan(ctx.endpoint, answers), {
    'x-request-id': ctx.requestId,
    'x-smg-routed-worker-id': routed ?? pair.decode.key,
    'x-smg-paced-chunks': String(bodies.length),
  });
  return { kind: 'done' };
}
