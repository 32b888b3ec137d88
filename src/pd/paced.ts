/**
 * Pacing a plan wider than the decode's running window: instead of refusing a batch that needs more
 * rooms than the window can ever hold, it is split into chunks of at most `window` items, sent one
 * chunk at a time (each a normal PD dispatch with fresh rooms, inside the request's one claim and
 * one prefill slot), and the answers are merged into the single response the client asked for.
 * Non-streaming requests only: a merged stream would need its events re-indexed on the fly.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { bufferAnswer, releaseLeases, type Answer } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import type { JsonObject } from '../util/json.js';
import { readAllText } from '../upstream/body-source.js';
import { midStreamGatewayError } from '../upstream/errors.js';
import type { Worker } from '../workers/worker.js';

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

/**
 * Sends the chunks one after another through `dispatchChunk` (a normal PD dispatch), reads each
 * answer whole, and returns one merged answer. A chunk that fails fails the request (not retried:
 * earlier chunks already ran on the decode).
 */
export async function dispatchPaced(
  ctx: RequestContext,
  window: number,
  dispatchChunk: (chunk: RequestContext) => Promise<Answer>,
  decode: Worker,
): Promise<Answer> {
  const bodies = splitPlan(ctx.endpoint, ctx.body, window);
  if (!bodies || ctx.stream) {
    throw new GatewayError(
      'invalid_body',
      `This request needs more decode rooms than the running window (${window}) and cannot be paced${ctx.stream ? ' while streaming' : ''}; send at most ${window} items or samples per request`,
      { retryable: false },
    );
  }
  const answers: unknown[] = [];
  let routed: string | undefined;
  for (const body of bodies) {
    const sub: RequestContext = { ...ctx, body, upstreamBody: Buffer.from(JSON.stringify(body)) };
    const answer = await dispatchChunk(sub);
    let text: string;
    try {
      text = await readAllText(answer.body);
    } catch (err) {
      releaseLeases(answer, ctx.signal.aborted ? 'client_closed' : 'upstream_failed', err);
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw new GatewayError(
        'decode_read_failed',
        'a paced chunk ended before its answer was complete',
        { retryable: false },
      );
    }
    releaseLeases(answer, 'complete');
    if (answer.status !== 200) {
      throw new GatewayError(
        'decode_error',
        `a paced chunk failed with ${answer.status}: ${text.slice(0, 300)}`,
        { status: answer.status, retryable: false },
      );
    }
    routed = answer.routedTo?.key ?? routed;
    try {
      answers.push(JSON.parse(text));
    } catch {
      throw new GatewayError(
        'decode_read_failed',
        'a paced chunk ended before its answer was complete',
        { retryable: false },
      );
    }
  }
  const merged = Buffer.from(JSON.stringify(mergePlan(ctx.endpoint, answers)));
  return bufferAnswer(
    200,
    {
      'content-type': 'application/json',
      'x-request-id': ctx.requestId,
      'x-smg-routed-worker-id': routed ?? decode.key,
      'x-smg-paced-chunks': String(bodies.length),
    },
    merged,
    {
      routedTo: decode,
      midStreamError: (cause) => midStreamGatewayError(cause, decode.url),
    },
  );
}
