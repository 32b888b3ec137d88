/**
 * The edge checks of a Responses body (`POST /v1/responses`), in every mode, as SMG's typed
 * `ResponsesRequest` validator refuses them: an `input` that is a non-empty string or a non-empty
 * list of items, `previous_response_id` and `conversation` not both, a conversation id of
 * `[A-Za-z0-9_-]`, `max_output_tokens` of at least 1, sampling in range, a `tool_choice` other than
 * `none` only with tools, a named function only when the request has it, and a non-empty
 * `json_schema` name.
 *
 * One rule of SMG's is left out on purpose: SMG refuses an input list that holds no message, so a
 * turn that only answers the model's calls (`function_call_output` items with
 * `previous_response_id`, the usual second step of a tool loop) never works there.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../util/json.js';

function invalid(message: string): GatewayError {
  return new GatewayError('invalid_body', message);
}

const CONVERSATION_ID = /^[A-Za-z0-9_-]+$/;

/** The conversation id a request names (a string or `{id}`), or undefined when it names none. */
export function conversationIdOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const id = isJsonObject(value) ? value.id : value;
  if (typeof id !== 'string' || !CONVERSATION_ID.test(id))
    throw invalid(
      "Field 'conversation' must be a conversation id (letters, digits, '_' and '-') or {\"id\": ...}",
    );
  return id;
}

function checkInput(input: unknown): void {
  if (typeof input === 'string') {
    if (input === '') throw invalid("Field 'input' must not be empty");
    return;
  }
  if (!Array.isArray(input) || input.length === 0)
    throw invalid("Field 'input' must be a non-empty string or a non-empty list of items");
  input.forEach((item, i) => {
    if (!isJsonObject(item)) throw invalid(`Field 'input[${i}]' must be an object`);
    if (item.type !== undefined && typeof item.type !== 'string')
      throw invalid(`Field 'input[${i}].type' must be a string`);
    if ((item.type === undefined || item.type === 'message') && typeof item.role !== 'string')
      throw invalid(`Field 'input[${i}].role' must be a string`);
    if (
      (item.type === 'function_call' || item.type === 'function_call_output') &&
      typeof item.call_id !== 'string'
    )
      throw invalid(`Field 'input[${i}].call_id' must be a string`);
  });
}

function checkRange(body: JsonObject, field: string, min: number, max: number): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !(v >= min && v <= max))
    throw invalid(`Field '${field}' must be a number from ${min} to ${max}`);
}

/** The function names of the request's tools (flat Responses function tools). */
function functionNames(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (tools === undefined || tools === null) return names;
  if (!Array.isArray(tools)) throw invalid("Field 'tools' must be a list");
  tools.forEach((t, i) => {
    if (!isJsonObject(t) || typeof t.type !== 'string')
      throw invalid(`Field 'tools[${i}]' must be a tool with a string 'type'`);
    if (t.type !== 'function') return;
    if (typeof t.name !== 'string' || t.name === '')
      throw invalid(`Field 'tools[${i}].name' must be a non-empty string`);
    names.add(t.name);
  });
  return names;
}

function checkToolChoice(body: JsonObject): void {
  const choice = body.tool_choice;
  if (choice === undefined || choice === null || choice === 'none') return;
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (!hasTools) throw invalid("Field 'tool_choice' other than \"none\" needs 'tools'");
  if (typeof choice === 'string') {
    if (choice !== 'auto' && choice !== 'required')
      throw invalid('Field \'tool_choice\' must be "none", "auto", "required" or an object');
    return;
  }
  if (!isJsonObject(choice) || typeof choice.type !== 'string')
    throw invalid("Field 'tool_choice' must be a string or an object with a 'type'");
  const names = functionNames(body.tools);
  if (choice.type === 'function') {
    if (typeof choice.name !== 'string' || !names.has(choice.name))
      throw invalid("Field 'tool_choice.name' must name a function in 'tools'");
  } else if (choice.type === 'allowed_tools') {
    if (choice.mode !== 'auto' && choice.mode !== 'required')
      throw invalid('Field \'tool_choice.mode\' must be "auto" or "required"');
    if (!Array.isArray(choice.tools)) throw invalid("Field 'tool_choice.tools' must be a list");
    for (const t of choice.tools)
      if (isJsonObject(t) && t.type === 'function' && !names.has(t.name as string))
        throw invalid("Field 'tool_choice.tools' must name functions in 'tools'");
  }
}

function checkTextFormat(text: unknown): void {
  if (text === undefined || text === null) return;
  if (!isJsonObject(text)) throw invalid("Field 'text' must be an object");
  const format = text.format;
  if (format === undefined || format === null) return;
  if (!isJsonObject(format) || typeof format.type !== 'string')
    throw invalid("Field 'text.format' must be an object with a 'type'");
  if (format.type === 'json_schema' && (typeof format.name !== 'string' || format.name === ''))
    throw invalid("Field 'text.format.name' must be a non-empty string");
}

export function validateResponses(body: JsonObject): void {
  if (typeof body.model !== 'string') throw invalid("Field 'model' is required");
  checkInput(body.input);
  if (body.instructions !== undefined && body.instructions !== null)
    if (typeof body.instructions !== 'string')
      throw invalid("Field 'instructions' must be a string");
  const previous = body.previous_response_id;
  if (previous !== undefined && previous !== null && typeof previous !== 'string')
    throw invalid("Field 'previous_response_id' must be a string");
  const conversation = conversationIdOf(body.conversation);
  if (typeof previous === 'string' && conversation !== undefined)
    throw new GatewayError(
      'mutually_exclusive_parameters',
      "'previous_response_id' and 'conversation' cannot both be set",
    );
  if (body.store !== undefined && body.store !== null && typeof body.store !== 'boolean')
    throw invalid("Field 'store' must be a boolean");
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null && !(Number.isInteger(max) && (max as number) >= 1))
    throw invalid("Field 'max_output_tokens' must be an integer of at least 1");
  checkRange(body, 'temperature', 0, 2);
  checkRange(body, 'top_p', 0, 1);
  functionNames(body.tools);
  checkToolChoice(body);
  checkTextFormat(body.text);
  if (body.metadata !== undefined && body.metadata !== null && !isJsonObject(body.metadata))
    throw invalid("Field 'metadata' must be an object");
}
