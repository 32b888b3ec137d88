// Wire shapes of the OpenAI Responses API as vLLM and SGLang serve it on /v1/responses: the
// response object (with the request fields it echoes), its output items and usage, and the named
// SSE events of a stream, each `event: <type>\ndata: <json>\n\n` with a `sequence_number` counting
// from 0 and no `[DONE]` (vLLM's framing). Shapes follow the official `openai` client's types.
// The per-token delta is one template around JSON.stringify of the token text.
import type { ResponseMeta } from './responses.js';

type Json = Record<string, unknown>;

/** How a response ended; vLLM reports a capped answer `incomplete`, everything else `completed`. */
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** An output item: the assistant's text, or one function call. */
export type OutputItem =
  | { type: 'message'; id: string; text: string }
  | { type: 'function_call'; id: string; callId: string; name: string; arguments: string };

export function responsesUsage(input: number, output: number, cached: number): ResponsesUsage {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/**
 * The request fields a response echoes, with vLLM's defaults for those the request left out
 * (temperature and top_p are the sampling defaults, 1.0).
 */
export function responseEcho(body: unknown): Json {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Json;
  const pick = (key: string, fallback: unknown): unknown => b[key] ?? fallback;
  const echo: Json = {
    background: pick('background', false),
    instructions: pick('instructions', null),
    max_output_tokens: pick('max_output_tokens', null),
    max_tool_calls: pick('max_tool_calls', null),
    metadata: pick('metadata', null),
    parallel_tool_calls: pick('parallel_tool_calls', true),
    // The engine's own store is off, so there is never a previous response here.
    previous_response_id: null,
    reasoning: pick('reasoning', null),
    service_tier: pick('service_tier', 'auto'),
    temperature: pick('temperature', 1),
    text: pick('text', { format: { type: 'text' } }),
    tool_choice: pick('tool_choice', 'auto'),
    tools: pick('tools', []),
    top_logprobs: pick('top_logprobs', 0),
    top_p: pick('top_p', 1),
    truncation: pick('truncation', 'disabled'),
  };
  if (typeof b['user'] === 'string') echo['user'] = b['user'];
  return echo;
}

/** The output item as the response (or an `output_item` event) carries it. */
export function itemJson(item: OutputItem, done: boolean): Json {
  const status = done ? 'completed' : 'in_progress';
  if (item.type === 'message') {
    return {
      id: item.id,
      type: 'message',
      role: 'assistant',
      status,
      content: done ? [textPart(item.text)] : [],
    };
  }
  return {
    id: item.id,
    type: 'function_call',
    call_id: item.callId,
    name: item.name,
    arguments: done ? item.arguments : '',
    status,
  };
}

function textPart(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** The response object; `extra` adds top-level fields (vLLM's kv_transfer_params). */
export function responseBody(
  meta: ResponseMeta,
  echo: Json,
  status: ResponseStatus,
  output: readonly OutputItem[],
  usage: ResponsesUsage | null,
  extra?: Json,
): Json {
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.created,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model: meta.model,
    output: output.map((item) => itemJson(item, true)),
    usage,
    ...echo,
    ...extra,
  };
}

/**
 * Numbers and frames the events of one stream. Every event but the per-token delta is built with
 * JSON.stringify; the delta is a template, since it is the one written per token.
 */
export class ResponsesEvents {
  private seq = 0;

  /** `response.created` or `response.in_progress`, or the final `response.completed`. */
  lifecycle(type: 'created' | 'in_progress' | 'completed', response: Json): string {
    return this.frame(`response.${type}`, { response });
  }

  itemAdded(outputIndex: number, item: OutputItem): string {
    return this.frame('response.output_item.added', {
      output_index: outputIndex,
      item: itemJson(item, false),
    });
  }

  itemDone(outputIndex: number, item: OutputItem): string {
    return this.frame('response.output_item.done', {
      output_index: outputIndex,
      item: itemJson(item, true),
    });
  }

  partAdded(outputIndex: number, itemId: string): string {
    return this.frame('response.content_part.added', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      part: textPart(''),
    });
  }

  partDone(outputIndex: number, itemId: string, text: string): string {
    return this.frame('response.content_part.done', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      part: textPart(text),
    });
  }

  textDelta(outputIndex: number, itemId: string, delta: string): string {
    const seq = this.seq++;
    return (
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",' +
      `"sequence_number":${seq},"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex},` +
      `"content_index":0,"delta":${JSON.stringify(delta)},"logprobs":[]}\n\n`
    );
  }

  textDone(outputIndex: number, itemId: string, text: string): string {
    return this.frame('response.output_text.done', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      text,
      logprobs: [],
    });
  }

  argumentsDelta(outputIndex: number, itemId: string, delta: string): string {
    return this.frame('response.function_call_arguments.delta', {
      item_id: itemId,
      output_index: outputIndex,
      delta,
    });
  }

  argumentsDone(outputIndex: number, itemId: string, name: string, args: string): string {
    return this.frame('response.function_call_arguments.done', {
      item_id: itemId,
      output_index: outputIndex,
      name,
      arguments: args,
    });
  }

  /**
   * A stream that fails mid-way ends with one `error` event (the Responses API's), whose `code`
   * is the simulator's error type; the official client rejects the stream on it.
   */
  error(message: string, type: string): string {
    return this.frame('error', { code: type, message, param: null });
  }

  private frame(type: string, fields: Json): string {
    const json = JSON.stringify({ type, sequence_number: this.seq++, ...fields });
    return `event: ${type}\ndata: ${json}\n\n`;
  }
}
