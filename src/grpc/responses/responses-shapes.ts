/**
 * The OpenAI Responses answer of a gRPC generation: the whole response object, and the pieces the
 * stream framer (responses-framer.ts) shares with it (item shapes and ids, status, usage). The
 * `openai` client's types (`Response`, `ResponseOutputItem`, `ResponseUsage`) are the reference.
 *
 * Deviations from SMG, each where SMG's answer is wrong for an OpenAI client:
 * - output items come in generation order: `reasoning`, `message`, then `function_call` (SMG puts
 *   the message first);
 * - a reasoning item's id is `rs_…` (SMG: `reasoning_<chat id>`); reasoning items carry a
 *   `status` like messages and calls do;
 * - a function_call item has an `fc_…` id of its own beside the model's `call_id` (SMG reuses the
 *   call id as item id) and is `completed` (SMG: `in_progress`);
 * - a response that made tool calls is `completed` (SMG: `in_progress`); one cut by the token
 *   cap is `incomplete` with `incomplete_details.reason: "max_output_tokens"`, and so is its last
 *   item (SMG: `completed`);
 * - `usage` always has `input_tokens_details` and `output_tokens_details`;
 * - an answer with no text and no call has `output: []` (SMG makes up an empty message).
 *
 * Text that is only whitespace (the newlines a model writes between its reasoning and a call)
 * makes no message item, in the whole body as in the stream.
 */
import { uuidv7 } from '../../util/uuid7.js';
import type { ChoiceState } from '../choice.js';

/** What every object of one Responses answer shares, decided before the engine is called. */
export interface ResponseHead {
  /** `resp_…`, made by the caller: the same in the stream, the whole body and the store. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  model: string;
  /**
   * The request fields every response object repeats (`instructions`, `tools`, `tool_choice`,
   * `store`, `previous_response_id`, …), built by the caller: copied, never interpreted.
   */
  echo: Record<string, unknown>;
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** An output item id: OpenAI's prefix for the item type, then 32 hex digits. */
export function itemId(prefix: 'msg' | 'rs' | 'fc'): string {
  return `${prefix}_${uuidv7().replaceAll('-', '')}`;
}

/** A message's one `output_text` part (no annotations or logprobs are produced here). */
export function outputText(text: string): Record<string, unknown> {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function reasoningText(text: string): Record<string, unknown> {
  return { type: 'reasoning_text', text };
}

/** An assistant message item; `text` undefined for the item as it opens, with no part yet. */
export function messageItem(
  id: string,
  status: ItemStatus,
  text?: string,
): Record<string, unknown> {
  return {
    id,
    type: 'message',
    status,
    content: text === undefined ? [] : [outputText(text)],
    role: 'assistant',
  };
}

/** A reasoning item; `text` undefined for the item as it opens, with no part yet. */
export function reasoningItem(
  id: string,
  status: ItemStatus,
  text?: string,
): Record<string, unknown> {
  return {
    id,
    type: 'reasoning',
    summary: [],
    content: text === undefined ? [] : [reasoningText(text)],
    status,
  };
}

export function functionCallItem(
  id: string,
  status: ItemStatus,
  callId: string,
  name: string,
  args: string,
): Record<string, unknown> {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name };
}

/**
 * How a sample ended, as a response's status: the token cap (`length`) leaves it `incomplete`;
 * anything else (EOS, a stop string, tool calls) completes it.
 */
export function endOf(c: ChoiceState | undefined): {
  status: 'completed' | 'incomplete';
  incompleteDetails: { reason: 'max_output_tokens' } | null;
} {
  return c?.clientFinishReason === 'length'
    ? { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } }
    : { status: 'completed', incompleteDetails: null };
}

/**
 * Responses usage. `inputTokens` (the prompt's count, known before the engine answers) stands in
 * until the engine reports its own. `cache_write_tokens` is in the client's type; the engines
 * report no such count.
 */
export function usageOf(c: ChoiceState | undefined, inputTokens: number): Record<string, unknown> {
  const input = c?.promptTokens || inputTokens;
  const output = c?.completionTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: c?.cachedTokens ?? 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: c?.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}

export interface ResponseState {
  status: ResponseStatus;
  output: readonly Record<string, unknown>[];
  /** Null while the response is in progress, as OpenAI streams it. */
  usage: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  incompleteDetails: { reason: string } | null;
}

/**
 * A response object: its own fields, then the request's echoed fields (which never override
 * them), then usage.
 */
export function responseObject(head: ResponseHead, s: ResponseState): Record<string, unknown> {
  const r: Record<string, unknown> = {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    status: s.status,
    completed_at: s.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: s.error,
    incomplete_details: s.incompleteDetails,
    model: head.model,
    output: s.output,
  };
  for (const key of Object.keys(head.echo)) if (!(key in r)) r[key] = head.echo[key];
  r.usage = s.usage;
  return r;
}

/** The whole (non-streamed) response of the request's one sample. */
export function responseBody(
  head: ResponseHead,
  c: ChoiceState,
  inputTokens: number,
): Record<string, unknown> {
  const parsed = c.parsed ?? { reasoning: '', content: c.text, toolCalls: [] };
  const output: Record<string, unknown>[] = [];
  if (parsed.reasoning !== '')
    output.push(reasoningItem(itemId('rs'), 'completed', parsed.reasoning));
  if (parsed.content.trim() !== '')
    output.push(messageItem(itemId('msg'), 'completed', parsed.content));
  for (const call of parsed.toolCalls)
    output.push(
      functionCallItem(
        itemId('fc'),
        'completed',
        call.id,
        call.function.name,
        call.function.arguments,
      ),
    );
  const end = endOf(c);
  const last = output.at(-1);
  // The cap cut the item being written; those before it were whole.
  if (end.status === 'incomplete' && last !== undefined) last.status = 'incomplete';
  return responseObject(head, {
    status: end.status,
    output,
    usage: usageOf(c, inputTokens),
    error: null,
    incompleteDetails: end.incompleteDetails,
  });
}
