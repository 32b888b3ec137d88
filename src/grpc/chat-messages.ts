/**
 * A chat request's `messages` made into what a chat template can render, in every shape the
 * OpenAI chat API allows: content null, a string or an array of parts; assistant `tool_calls`
 * with arguments as a JSON string; `tool` results with string or array content; `name` fields.
 * Each message keeps only the fields of its role (SMG reads messages into typed structs, which
 * drops the rest), so a client's `refusal: null` or `audio: null` never reaches a template.
 *
 * Null content becomes "", as vLLM and SGLang hand it to templates: a tool-call-only assistant
 * turn (`content: null`) is what every agent loop sends back, and templates test it with `in`,
 * `startswith` or `+`, all of which fail on null in Jinja (Qwen3's does `'</think>' in content`).
 * Shapes no template can render (a tool call without a function name, a `tool` message without
 * `tool_call_id`) are refused here with a 400 naming the field, before any worker is chosen.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { badParam } from './sampling.js';

/** The fields each role keeps, as SMG's typed `ChatMessage` variants hold them. */
const ROLE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  system: ['content', 'name'],
  developer: ['content', 'name', 'tools'],
  user: ['content', 'name'],
  assistant: ['content', 'name', 'tool_calls', 'reasoning_content'],
  // SMG's tool message has no `name`; vLLM's keeps it and some templates print it.
  tool: ['content', 'tool_call_id', 'name'],
  function: ['content', 'name'],
};

/** Content part types that are text; `refusal` is an assistant's text (vLLM reads it so). */
const TEXT_PART_FIELD: Readonly<Record<string, string>> = {
  text: 'text',
  input_text: 'text',
  output_text: 'text',
  refusal: 'refusal',
};

/** A 400 for input gRPC mode cannot carry to an engine yet (images, audio, video). */
export function multimodal(what: string): GatewayError {
  return new GatewayError(
    'multimodal_not_supported',
    `${what} is not supported in gRPC mode yet; send text only`,
  );
}

/**
 * Text parts as `{type: "text", text}` (what templates that iterate parts read); any other part
 * type is refused, since the gateway would otherwise render the prompt without it.
 */
function textParts(parts: readonly unknown[], where: string): JsonObject[] {
  return parts.map((part, i) => {
    const type = isJsonObject(part) ? part.type : undefined;
    if (typeof type !== 'string') throw badParam(`'${where}[${i}]' must be a content part object`);
    const field = TEXT_PART_FIELD[type];
    if (field === undefined) throw multimodal(`Message content of type '${type}'`);
    const text = (part as JsonObject)[field];
    if (typeof text !== 'string') throw badParam(`'${where}[${i}].${field}' must be a string`);
    return { type: 'text', text };
  });
}

/** `required`: the role has no content-less form (user, system, tool, function). */
function content(value: unknown, where: string, required: boolean): string | JsonObject[] {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return textParts(value, where);
  if ((value === undefined || value === null) && !required) return '';
  throw badParam(`'${where}' must be a string or a list of content parts`);
}

/**
 * One tool call as templates read it: arguments parsed from their JSON string (templates index
 * into them or pass them to `tojson`, as SMG and vLLM parse them first). Empty arguments are an
 * empty object, so a template does not print `"arguments": }`; a string that is not JSON is
 * passed on as it is (a template that prints strings shows what the model wrote).
 */
function toolCall(value: unknown, where: string): JsonObject {
  if (!isJsonObject(value)) throw badParam(`'${where}' must be an object`);
  const fn = value.function;
  if (!isJsonObject(fn) || typeof fn.name !== 'string' || fn.name === '')
    throw badParam(`'${where}.function.name' must be a non-empty string`);
  if (value.type !== undefined && value.type !== null && value.type !== 'function')
    throw badParam(`'${where}.type' must be "function"`);
  if (value.id !== undefined && value.id !== null && typeof value.id !== 'string')
    throw badParam(`'${where}.id' must be a string`);
  return {
    ...(typeof value.id === 'string' ? { id: value.id } : {}),
    type: 'function',
    function: { name: fn.name, arguments: parsedArguments(fn.arguments) },
  };
}

function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function message(value: unknown, i: number): JsonObject {
  const where = `messages[${i}]`;
  if (!isJsonObject(value) || typeof value.role !== 'string')
    throw badParam(`'${where}' must be an object with a string 'role'`);
  const role = value.role;
  const fields = Object.hasOwn(ROLE_FIELDS, role) ? ROLE_FIELDS[role] : undefined;
  if (fields === undefined)
    throw badParam(
      `'${where}.role' is '${role}'; expected system, developer, user, assistant, tool or function`,
    );
  const out: JsonObject = { role };
  for (const field of fields) if (value[field] !== undefined) out[field] = value[field];
  out.content = content(value.content, `${where}.content`, role !== 'assistant');
  if (out.name !== undefined && out.name !== null && typeof out.name !== 'string')
    throw badParam(`'${where}.name' must be a string`);
  if (role === 'tool' && typeof value.tool_call_id !== 'string')
    throw badParam(`'${where}.tool_call_id' must be a string`);
  if (role === 'assistant') assistantFields(value, out, where);
  return out;
}

function assistantFields(value: JsonObject, out: JsonObject, where: string): void {
  const calls = value.tool_calls;
  if (calls === undefined || calls === null) delete out.tool_calls;
  else if (!Array.isArray(calls)) throw badParam(`'${where}.tool_calls' must be a list`);
  else if (calls.length === 0) delete out.tool_calls;
  else out.tool_calls = calls.map((c, k) => toolCall(c, `${where}.tool_calls[${k}]`));
  // vLLM answers with `reasoning`, SGLang and Switchyard with `reasoning_content`: a client
  // sending back either gets its reasoning rendered where the template expects it.
  const reasoning = value.reasoning_content ?? value.reasoning;
  if (reasoning === undefined || reasoning === null) delete out.reasoning_content;
  else if (typeof reasoning !== 'string')
    throw badParam(`'${where}.reasoning_content' must be a string`);
  else out.reasoning_content = reasoning;
}

/** The request's messages for the chat template; throws a 400 naming the first bad field. */
export function templateMessages(body: JsonObject): JsonObject[] {
  const messages = body.messages;
  if (!Array.isArray(messages)) throw badParam("'messages' must be a list");
  return messages.map(message);
}
