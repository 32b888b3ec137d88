// Wire shapes of the simulated engines: OpenAI chat/completions (JSON and SSE chunks, as vLLM and
// SGLang's OpenAI servers emit them) and SGLang's native /generate. Streaming chunks are built from
// a per-request prefix string so the per-token path is one JSON.stringify of the token text.
import type { FinishReason, InferenceKind } from './request-parse.js';
import type { CallDelta, ToolCallOut } from './tool-stream.js';

export interface ResponseMeta {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Present on the realistic engine, which has a prefix cache. */
  prompt_tokens_details?: { cached_tokens: number };
}

export type OpenAiKind = Exclude<InferenceKind, 'generate'>;

/** A chat output whose answer the tool parser turned into calls finishes `tool_calls`. */
export type OpenAiFinish = FinishReason | 'tool_calls';

export const SSE_DONE = 'data: [DONE]\n\n';

export function sseEvent(json: string): string {
  return `data: ${json}\n\n`;
}

/** `cached` undefined leaves out prompt_tokens_details (canned engine: no prefix cache). */
export function usage(prompt: number, completion: number, cached?: number): Usage {
  const u: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (cached !== undefined) u.prompt_tokens_details = { cached_tokens: cached };
  return u;
}

/** OpenAI-style error body; the engines' OpenAI servers answer errors in this shape. */
export function errorBody(status: number, message: string, type: string): unknown {
  return { error: { message, type, code: status } };
}

/** A mid-stream failure: SGLang and vLLM emit one error event, then `[DONE]`. */
export function sseError(status: number, message: string, type: string): string {
  return sseEvent(JSON.stringify(errorBody(status, message, type))) + SSE_DONE;
}

function objectName(kind: OpenAiKind, stream: boolean): string {
  if (kind === 'completion') return 'text_completion';
  return stream ? 'chat.completion.chunk' : 'chat.completion';
}

/** `{"id":…,"object":…,"created":…,"model":…,"choices":[{"index":` — completed per chunk. */
export function chunkPrefix(kind: OpenAiKind, meta: ResponseMeta): string {
  const head = JSON.stringify({
    id: meta.id,
    object: objectName(kind, true),
    created: meta.created,
    model: meta.model,
  });
  return `${head.slice(0, -1)},"choices":[{"index":`;
}

/** First chunk of a chat choice: the assistant role with empty content, as vLLM sends it. */
export function chatRoleChunk(prefix: string, index: number): string {
  return `${prefix}${index},"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`;
}

/** `logprobs` is the chunk's logprobs JSON ('null' when not requested). */
export function tokenChunk(
  kind: OpenAiKind,
  prefix: string,
  index: number,
  text: string,
  logprobs = 'null',
): string {
  const t = JSON.stringify(text);
  return kind === 'chat'
    ? `${prefix}${index},"delta":{"content":${t}},"logprobs":${logprobs},"finish_reason":null}]}`
    : `${prefix}${index},"text":${t},"logprobs":${logprobs},"finish_reason":null}]}`;
}

/**
 * One tool-call delta of a chat choice, as OpenAI streams them: the call's first delta carries
 * `id`, `type` and the function's `name` (with the arguments known so far, usually `""`), later
 * ones only `function.arguments` pieces.
 */
export function toolCallChunk(prefix: string, index: number, d: CallDelta): string {
  const call =
    d.header === undefined
      ? { index: d.index, function: { arguments: d.arguments } }
      : {
          index: d.index,
          id: d.header.id,
          type: 'function',
          function: { name: d.header.name, arguments: d.arguments },
        };
  return `${prefix}${index},"delta":{"tool_calls":[${JSON.stringify(call)}]},"logprobs":null,"finish_reason":null}]}`;
}

export function finishChunk(
  kind: OpenAiKind,
  prefix: string,
  index: number,
  finish: OpenAiFinish,
): string {
  return kind === 'chat'
    ? `${prefix}${index},"delta":{},"logprobs":null,"finish_reason":"${finish}"}]}`
    : `${prefix}${index},"text":"","logprobs":null,"finish_reason":"${finish}"}]}`;
}

/** Final chunk under `stream_options.include_usage`: no choices, only usage. */
export function usageChunk(kind: OpenAiKind, meta: ResponseMeta, u: Usage): string {
  return JSON.stringify({
    id: meta.id,
    object: objectName(kind, true),
    created: meta.created,
    model: meta.model,
    choices: [],
    usage: u,
  });
}

/** One choice of a whole response. */
export interface ChoiceOutput {
  /** Chat: null when the answer was only tool calls (and whitespace). */
  text: string | null;
  finish: OpenAiFinish;
  /** Chat: the calls the tool parser found; absent when it found none. */
  toolCalls?: readonly ToolCallOut[] | undefined;
  logprobs?: unknown;
}

/**
 * Non-streaming chat.completion or text_completion body; `extra` adds top-level fields (vLLM's
 * kv_transfer_params).
 */
export function openAiBody(
  kind: OpenAiKind,
  meta: ResponseMeta,
  outputs: readonly ChoiceOutput[],
  u: Usage,
  extra?: Record<string, unknown>,
): unknown {
  const choices = outputs.map((o, index) =>
    kind === 'chat'
      ? {
          index,
          message: chatMessage(o),
          logprobs: o.logprobs ?? null,
          finish_reason: o.finish,
        }
      : { index, text: o.text ?? '', logprobs: o.logprobs ?? null, finish_reason: o.finish },
  );
  return {
    id: meta.id,
    object: objectName(kind, false),
    created: meta.created,
    model: meta.model,
    choices,
    usage: u,
    ...extra,
  };
}

function chatMessage(o: ChoiceOutput): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: o.text };
  if (o.toolCalls !== undefined) {
    message['tool_calls'] = o.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return message;
}

/** SGLang logprob entry: [logprob, token_id, token_text]; text is null unless requested. */
export type LogprobEntry = [number, number, null];

/** SGLang finish_reason: `{type:'length', length}` on the cap, `{type:'stop', matched}` on EOS. */
export type GenerateFinish = { type: 'length'; length: number } | { type: 'stop'; matched: number };

export interface GenerateState {
  rid: string;
  /** Set for batch requests, where each chunk says which output it belongs to. */
  index: number | undefined;
  text: string;
  outputIds: number[];
  promptTokens: number;
  cachedTokens: number;
  finish: GenerateFinish | null;
  e2eLatency: number;
  inputLogprobs: LogprobEntry[] | undefined;
  outputLogprobs: LogprobEntry[] | undefined;
}

/**
 * One /generate result. Streaming chunks use the same shape with cumulative text, as SGLang does
 * without incremental streaming output.
 */
export function generateResult(s: GenerateState): unknown {
  const metaInfo: Record<string, unknown> = {
    id: s.rid,
    prompt_tokens: s.promptTokens,
    completion_tokens: s.outputIds.length,
    cached_tokens: s.cachedTokens,
    finish_reason: s.finish,
    e2e_latency: s.e2eLatency,
  };
  if (s.inputLogprobs !== undefined) metaInfo['input_token_logprobs'] = s.inputLogprobs;
  if (s.outputLogprobs !== undefined) metaInfo['output_token_logprobs'] = s.outputLogprobs;
  const result: Record<string, unknown> = {
    text: s.text,
    output_ids: s.outputIds,
    meta_info: metaInfo,
  };
  if (s.index !== undefined) result['index'] = s.index;
  return result;
}
