/**
 * A Responses request (`POST /v1/responses`) as the gRPC pipeline runs it: turned into the chat
 * request it means (input items as messages, flat function tools as chat tools, `text.format` as
 * `response_format`, `max_output_tokens` as the token cap, `reasoning.effort` as chat's), planned
 * as a chat, and answered in the Responses shape under the id the edge chose for the turn. The
 * body's `input` already holds the history of `previous_response_id` or `conversation`
 * (responses/prepare-turn.ts). Tools other than functions (hosted tools, MCP) are not offered to
 * the model, as in SMG: nothing here could run them.
 */
import { GatewayError } from '../../errors/gateway-error.js';
import type { RequestContext } from '../../routing/request-context.js';
import { isJsonObject, type JsonObject } from '../../util/json.js';
import { chatPlan } from '../chat-plan.js';
import type { GrpcPlan } from '../plan.js';
import type { ResponseHead } from './responses-shapes.js';
import { chatMessagesOfInput } from './responses-input.js';

/** Flat Responses function tools as chat tools; other tool types are left out. */
function chatTools(tools: unknown): JsonObject[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const out: JsonObject[] = [];
  for (const t of tools) {
    if (!isJsonObject(t) || t.type !== 'function') continue;
    const fn: JsonObject = { name: t.name, parameters: t.parameters ?? undefined };
    if (typeof t.description === 'string') fn.description = t.description;
    out.push({ type: 'function', function: fn });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Responses' `tool_choice` as chat's: `allowed_tools` narrows the tools offered (in its mode);
 * hosted-tool choices mean nothing without those tools and become `auto`, as in SMG.
 */
function chatToolChoice(
  choice: unknown,
  tools: JsonObject[] | undefined,
): { choice: unknown; tools: JsonObject[] | undefined } {
  if (choice === undefined || choice === null || typeof choice === 'string')
    return { choice, tools };
  if (!isJsonObject(choice)) return { choice: 'auto', tools };
  if (choice.type === 'function')
    return { choice: { type: 'function', function: { name: choice.name } }, tools };
  if (choice.type === 'allowed_tools' && Array.isArray(choice.tools)) {
    const allowed = new Set(
      choice.tools.map((t) => (isJsonObject(t) ? t.name : undefined)).filter((n) => n),
    );
    const kept = tools?.filter((t) => allowed.has((t.function as JsonObject).name));
    return { choice: choice.mode, tools: kept !== undefined && kept.length > 0 ? kept : undefined };
  }
  return { choice: 'auto', tools };
}

/** `text.format` as chat's `response_format`. */
function responseFormat(text: unknown): JsonObject | undefined {
  const format = isJsonObject(text) && isJsonObject(text.format) ? text.format : undefined;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema')
    return {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, strict: format.strict === true },
    };
  throw new GatewayError(
    'invalid_request_parameters',
    `'text.format.type' ${JSON.stringify(format.type)} is not supported`,
  );
}

/** The chat request a Responses body means. */
export function chatBodyOf(body: JsonObject): JsonObject {
  const picked = chatToolChoice(body.tool_choice, chatTools(body.tools));
  const reasoning = isJsonObject(body.reasoning) ? body.reasoning : undefined;
  return {
    model: body.model,
    messages: chatMessagesOfInput(body.instructions, body.input),
    tools: picked.tools,
    tool_choice: picked.tools === undefined ? undefined : picked.choice,
    parallel_tool_calls: body.parallel_tool_calls,
    max_completion_tokens: body.max_output_tokens,
    temperature: body.temperature,
    top_p: body.top_p,
    top_logprobs: body.top_logprobs,
    response_format: responseFormat(body.text),
    reasoning_effort: reasoning?.effort,
  };
}

const DEFAULT_TEXT = { format: { type: 'text' } };

/**
 * The request fields a response repeats, with OpenAI's defaults for those the client left out,
 * so a stored response reads the same as the one the client was given.
 */
export function echoOf(body: JsonObject, turn: RequestContext['responses']): JsonObject {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: turn?.previousResponseId ?? null,
    conversation: turn?.conversationId === undefined ? null : { id: turn.conversationId },
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store: turn?.store ?? body.store !== false,
    temperature: body.temperature ?? 1,
    text: body.text ?? DEFAULT_TEXT,
    tool_choice: body.tool_choice ?? 'auto',
    tools,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    user: body.user ?? null,
    background: false,
  };
}

export function responsesPlan(ctx: RequestContext): GrpcPlan {
  const body = ctx.body;
  const turn = ctx.responses;
  const head: ResponseHead = {
    id: turn?.id ?? `resp_${ctx.requestId}`,
    createdAt: turn?.createdAt ?? Math.floor(Date.now() / 1000),
    model: ctx.model,
    echo: echoOf(body, turn),
  };
  return { ...chatPlan(chatBodyOf(body), ctx.stream, false), kind: 'responses', responses: head };
}
