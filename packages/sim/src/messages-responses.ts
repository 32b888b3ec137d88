// Wire shapes of the Anthropic Messages API as SGLang and vLLM serve it on /v1/messages: the JSON
// message, its usage, the error body, and the SSE events of a stream. Unlike the OpenAI streams,
// every event is named (`event: <type>` before its `data:` line) and the stream ends with a
// `message_stop` event, never `[DONE]`. Frames that never vary are built once; the per-token
// delta is one template around JSON.stringify of the token text.
import type { FinishReason } from './request-parse.js';
import type { ResponseMeta } from './responses.js';

/** Anthropic's stop reasons for the ways a simulated output ends. */
export type StopReason = 'end_turn' | 'max_tokens' | 'tool_use';

export interface MessagesUsage {
  /** Every prompt token, cached ones included, as vLLM and SGLang report it (see docs). */
  input_tokens: number;
  output_tokens: number;
  /** Engines write no prompt cache on request, so nothing is ever "created". */
  cache_creation_input_tokens: 0;
  /** Prompt tokens served from the prefix cache (realistic engine), else 0. */
  cache_read_input_tokens: number;
}

/**
 * The engines map chat's `length` to `max_tokens`, `stop` (EOS) to `end_turn`, and `tool_calls`
 * (an answer that ended by itself with calls) to `tool_use`.
 */
export function stopReason(finish: FinishReason, calls: boolean): StopReason {
  if (finish === 'length') return 'max_tokens';
  return calls ? 'tool_use' : 'end_turn';
}

export function messagesUsage(input: number, output: number, cached: number): MessagesUsage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

/**
 * Anthropic's error body. `type` is the simulator's error type verbatim (`invalid_request_error`
 * for bad requests, `bootstrap_timeout` for a PD deadline, …), as vLLM passes its own through.
 */
export function anthropicErrorBody(_status: number, message: string, type: string): unknown {
  return { type: 'error', error: { type, message } };
}

/** One named SSE event. */
export function messagesFrame(type: string, json: string): string {
  return `event: ${type}\ndata: ${json}\n\n`;
}

/** A stream that fails mid-way ends with one `error` event (Anthropic's and vLLM's framing). */
export function messagesStreamError(status: number, message: string, type: string): string {
  return messagesFrame('error', JSON.stringify(anthropicErrorBody(status, message, type)));
}

/** First event: the message with no content yet; one output token counted, as Anthropic does. */
export function messageStartFrame(meta: ResponseMeta, usage: MessagesUsage): string {
  const message = {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  return messagesFrame('message_start', JSON.stringify({ type: 'message_start', message }));
}

export const TEXT_BLOCK_START_FRAME = messagesFrame(
  'content_block_start',
  '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
);

export const PING_FRAME = messagesFrame('ping', '{"type":"ping"}');

const DELTA_HEAD =
  'event: content_block_delta\ndata: ' +
  '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":';

/** One token of the text block. */
export function textDeltaFrame(text: string): string {
  return `${DELTA_HEAD}${JSON.stringify(text)}}}\n\n`;
}

export const TEXT_BLOCK_STOP_FRAME = messagesFrame(
  'content_block_stop',
  '{"type":"content_block_stop","index":0}',
);

/** Content blocks of a message; a tool-parsed answer has text (if any) then `tool_use` blocks. */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** Opens block `index`; a `tool_use` block opens with `input: {}`, filled by its deltas. */
export function blockStartFrame(index: number, block: ContentBlock): string {
  const json = JSON.stringify({ type: 'content_block_start', index, content_block: block });
  return messagesFrame('content_block_start', json);
}

/** A delta of block `index`: `text_delta` text, or an `input_json_delta` piece of a call's input. */
export function blockDeltaFrame(index: number, kind: 'text' | 'input_json', piece: string): string {
  const delta =
    kind === 'text'
      ? { type: 'text_delta', text: piece }
      : { type: 'input_json_delta', partial_json: piece };
  return messagesFrame(
    'content_block_delta',
    JSON.stringify({ type: 'content_block_delta', index, delta }),
  );
}

export function blockStopFrame(index: number): string {
  return messagesFrame('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
}

/** The final message-level change: why it stopped and the total output tokens. */
export function messageDeltaFrame(stop: StopReason, outputTokens: number): string {
  const json = JSON.stringify({
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  return messagesFrame('message_delta', json);
}

export const MESSAGE_STOP_FRAME = messagesFrame('message_stop', '{"type":"message_stop"}');

/** Non-streaming message; `extra` adds top-level fields (vLLM's kv_transfer_params). */
export function messagesBody(
  meta: ResponseMeta,
  content: readonly ContentBlock[],
  stop: StopReason,
  usage: MessagesUsage,
  extra?: Record<string, unknown>,
): unknown {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
    ...extra,
  };
}
