/**
 * The OpenAI and SGLang response shapes of gRPC mode, built from sample states: chat and
 * completion chunks and bodies, and SGLang's native `/generate` frames. Every chunk of one
 * response carries the same `id`, `model`, `created` and `system_fingerprint` (the worker's
 * weight version, "default" when it has none).
 */
import type { ChatDelta } from './chat-output.js';
import type { ChoiceState, TokenLogprob } from './choice.js';
import { usageOf } from './choice.js';

export interface ResponseMeta {
  id: string;
  model: string;
  created: number;
  fingerprint: string;
  /** Decodes one token id, for logprob entries. */
  tokenText: (id: number) => string;
}

export type Kind = 'chat' | 'completion' | 'generate';

export function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export const DONE = 'data: [DONE]\n\n';

function chatLogprobs(meta: ResponseMeta, entries: readonly TokenLogprob[]): unknown {
  const item = (id: number, logprob: number) => {
    const token = meta.tokenText(id);
    return { token, logprob, bytes: [...Buffer.from(token)] };
  };
  return {
    content: entries.map((e) => ({
      ...item(e.id, e.logprob),
      top_logprobs: e.top.map((t) => item(t.id, t.logprob)),
    })),
  };
}

function completionLogprobs(meta: ResponseMeta, entries: readonly TokenLogprob[]): unknown {
  let offset = 0;
  const tokens: string[] = [];
  const textOffset: number[] = [];
  for (const e of entries) {
    const t = meta.tokenText(e.id);
    tokens.push(t);
    textOffset.push(offset);
    offset += t.length;
  }
  return {
    tokens,
    token_logprobs: entries.map((e) => e.logprob),
    top_logprobs: entries.map((e) =>
      Object.fromEntries(e.top.map((t) => [meta.tokenText(t.id), t.logprob])),
    ),
    text_offset: textOffset,
  };
}

/** Completions normalise the finish reason: '' or stop → stop; length/content_filter kept. */
function completionFinish(reason: string | undefined): string {
  if (reason === 'length' || reason === 'content_filter') return reason;
  return 'stop';
}

/** The logprob entries added since `from`, for a stream delta. */
function logprobsSince(
  kind: Kind,
  meta: ResponseMeta,
  c: ChoiceState,
  from: number,
  want: boolean,
): unknown {
  if (!want) return null;
  const entries = c.logprobs.slice(from);
  return kind === 'chat' ? chatLogprobs(meta, entries) : completionLogprobs(meta, entries);
}

/**
 * The JSON of a delta chunk up to the text, per sample: every delta of a stream repeats the same
 * id, model, created and fingerprint, so they are serialized once per sample and each token
 * costs one JSON string escape instead of a whole chunk object's serialization.
 */
const deltaPrefixes = new WeakMap<ChoiceState, { kind: string; prefix: string }>();

function deltaPrefix(kind: 'chat' | 'completion', meta: ResponseMeta, c: ChoiceState): string {
  const cached = deltaPrefixes.get(c);
  if (cached?.kind === kind) return cached.prefix;
  const head = JSON.stringify({
    id: meta.id,
    object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: meta.fingerprint,
  });
  const choice =
    kind === 'chat' ? `{"index":${c.index},"delta":{"content":` : `{"index":${c.index},"text":`;
  const prefix = `data: ${head.slice(0, -1)},"choices":[${choice}`;
  deltaPrefixes.set(c, { kind, prefix });
  return prefix;
}

/** A content delta of one sample (chat: `delta.content`; completions: `text`). */
export function deltaFrame(
  kind: 'chat' | 'completion',
  meta: ResponseMeta,
  c: ChoiceState,
  text: string,
  logprobsFrom: number,
  wantLogprobs: boolean,
): string {
  const logprobs = JSON.stringify(logprobsSince(kind, meta, c, logprobsFrom, wantLogprobs));
  const close = kind === 'chat' ? '}' : '';
  return `${deltaPrefix(kind, meta, c)}${JSON.stringify(text)}${close},"logprobs":${logprobs},"finish_reason":null}]}\n\n`;
}

/**
 * A chat delta of a sample whose text is parsed: whichever of content, reasoning and tool calls
 * the piece added ('' when it added nothing, e.g. a held marker prefix).
 */
export function chatPartsFrame(
  meta: ResponseMeta,
  c: ChoiceState,
  parts: ChatDelta,
  logprobsFrom: number,
  wantLogprobs: boolean,
): string {
  const moreLogprobs = wantLogprobs && c.logprobs.length > logprobsFrom;
  if (parts.reasoning === '' && parts.toolCalls.length === 0) {
    // Plain content, the common case: the same cached-prefix frame as an unparsed answer.
    if (parts.content === '' && !moreLogprobs) return '';
    return deltaFrame('chat', meta, c, parts.content, logprobsFrom, wantLogprobs);
  }
  const delta: Record<string, unknown> = {};
  if (parts.content !== '') delta.content = parts.content;
  if (parts.reasoning !== '') delta.reasoning_content = parts.reasoning;
  if (parts.toolCalls.length > 0) delta.tool_calls = parts.toolCalls;
  return chatChunk(
    meta,
    c.index,
    delta,
    logprobsSince('chat', meta, c, logprobsFrom, wantLogprobs),
  );
}

/** One chat chunk frame of one sample, not finished. */
function chatChunk(meta: ResponseMeta, index: number, delta: object, logprobs: unknown): string {
  return sse({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    system_fingerprint: meta.fingerprint,
    choices: [{ index, delta, logprobs, finish_reason: null }],
  });
}

/** A whole chat answer's message: split into reasoning, content and tool calls when parsed. */
function chatMessage(c: ChoiceState): Record<string, unknown> {
  const p = c.parsed;
  if (p === undefined) return { role: 'assistant', content: c.text };
  const message: Record<string, unknown> = {
    role: 'assistant',
    // OpenAI's shape: a message that only calls tools has null content.
    content: p.content === '' && p.toolCalls.length > 0 ? null : p.content,
  };
  if (p.reasoning !== '') message.reasoning_content = p.reasoning;
  if (p.toolCalls.length > 0) message.tool_calls = p.toolCalls;
  return message;
}

/** Chat's first frame of a sample: the assistant role. */
export function roleFrame(meta: ResponseMeta, index: number): string {
  return chatChunk(meta, index, { role: 'assistant', content: '' }, null);
}

/** The last frame of one sample: its finish reason and matched stop. */
export function finishFrame(
  kind: 'chat' | 'completion',
  meta: ResponseMeta,
  c: ChoiceState,
): string {
  const common = {
    id: meta.id,
    created: meta.created,
    model: meta.model,
    system_fingerprint: meta.fingerprint,
  };
  if (kind === 'chat') {
    return sse({
      ...common,
      object: 'chat.completion.chunk',
      choices: [
        {
          index: c.index,
          delta: {},
          logprobs: null,
          finish_reason: c.clientFinishReason,
          matched_stop: c.matchedStop ?? null,
        },
      ],
    });
  }
  return sse({
    ...common,
    object: 'text_completion',
    choices: [
      {
        index: c.index,
        text: '',
        logprobs: null,
        finish_reason: completionFinish(c.finishReason),
        matched_stop: c.matchedStop ?? null,
      },
    ],
  });
}

export function usageFrame(
  kind: 'chat' | 'completion',
  meta: ResponseMeta,
  choices: readonly ChoiceState[],
): string {
  return sse({
    id: meta.id,
    object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: meta.fingerprint,
    choices: [],
    usage: usageOf(choices),
  });
}

/** A `/generate` stream frame: the sample's text so far and this chunk's ids. */
export function generateFrame(
  meta: ResponseMeta,
  c: ChoiceState,
  finish: { latencySecs: number } | undefined,
): string {
  return sse({
    text: c.text,
    output_ids: finish === undefined ? c.lastIds : c.lastIds.slice(-1),
    meta_info: {
      id: `${meta.id}-${c.index}`,
      finish_reason: finish === undefined ? null : (c.finishReason ?? 'stop'),
      prompt_tokens: c.promptTokens,
      weight_version: meta.fingerprint,
      completion_tokens: c.completionTokens,
      cached_tokens: c.cachedTokens,
      reasoning_tokens: c.reasoningTokens,
      ...(finish === undefined ? {} : { e2e_latency: finish.latencySecs }),
    },
    index: c.index,
  });
}

/** The whole non-streamed body. */
export function finalBody(
  kind: Kind,
  meta: ResponseMeta,
  choices: readonly ChoiceState[],
  opts: {
    wantLogprobs: boolean;
    echoText: string | undefined;
    latencySecs: number;
    outputIds: readonly (readonly number[])[];
  },
): unknown {
  if (kind === 'generate') {
    const items = choices.map((c, i) => ({
      text: c.text,
      output_ids: opts.outputIds[i] ?? [],
      meta_info: {
        id: choices.length > 1 ? `${meta.id}-${c.index}` : meta.id,
        finish_reason:
          c.finishReason === 'length'
            ? { type: 'length', length: c.completionTokens }
            : c.finishReason === 'stop' || c.finishReason === undefined
              ? { type: 'stop' }
              : c.finishReason,
        prompt_tokens: c.promptTokens,
        weight_version: meta.fingerprint,
        completion_tokens: c.completionTokens,
        cached_tokens: c.cachedTokens,
        reasoning_tokens: c.reasoningTokens,
        e2e_latency: opts.latencySecs,
        matched_stop: c.matchedStop ?? null,
        ...(opts.wantLogprobs
          ? { output_token_logprobs: c.logprobs.map((e) => [e.logprob, e.id, null]) }
          : {}),
      },
    }));
    return items.length === 1 ? items[0] : items;
  }
  const common = {
    id: meta.id,
    created: meta.created,
    model: meta.model,
    system_fingerprint: meta.fingerprint,
    usage: usageOf(choices),
  };
  if (kind === 'chat') {
    return {
      ...common,
      object: 'chat.completion',
      choices: choices.map((c) => ({
        index: c.index,
        message: chatMessage(c),
        logprobs: opts.wantLogprobs ? chatLogprobs(meta, c.logprobs) : null,
        finish_reason: c.clientFinishReason,
        matched_stop: c.matchedStop ?? null,
      })),
    };
  }
  return {
    ...common,
    object: 'text_completion',
    choices: choices.map((c) => ({
      index: c.index,
      text: (opts.echoText ?? '') + c.text,
      logprobs: opts.wantLogprobs ? completionLogprobs(meta, c.logprobs) : null,
      finish_reason: completionFinish(c.finishReason),
      matched_stop: c.matchedStop ?? null,
    })),
  };
}
