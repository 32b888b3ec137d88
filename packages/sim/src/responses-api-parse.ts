// OpenAI Responses requests (`POST /v1/responses`). vLLM and SGLang build a chat conversation from
// the Responses body (`instructions` as a leading system message, then the `input` items) and run
// it through their chat pipeline; the simulator does the same, so a Responses request is planned
// by the chat parser: the same rendering, token count, prefix-cache keys, seeded answer, tool
// rules, structured output and PD fields as the equivalent chat request.
import type { ParseResult, PlanDefaults } from './request-parse.js';
import { BadRequest } from './bad-request.js';
import { parseInference } from './request-parse.js';

type Body = Record<string, unknown>;
type ChatPart = { type: 'text'; text: string };
type ChatMessage = Record<string, unknown>;

// Content parts whose text reaches the prompt; images and files add nothing the simulator counts.
const TEXT_PARTS: ReadonlySet<string> = new Set(['input_text', 'output_text']);

/**
 * Plans a `POST /v1/responses` body as one chat output. `max_output_tokens` is only a cap, as
 * `max_tokens` is on /v1/messages: the answer ends naturally after `--eos-length` or else
 * `--output-tokens` tokens unless the cap comes first, so a client that asks for 4096 tokens does
 * not wait for all of them. A `previous_response_id` answers 404: the simulator keeps no responses,
 * as vLLM keeps none unless `VLLM_ENABLE_RESPONSES_API_STORE` is set, so every id is unknown.
 */
export function parseResponses(body: unknown, d: PlanDefaults): ParseResult {
  let chat: Body;
  try {
    chat = chatRequest(object(body));
  } catch (err) {
    if (err instanceof BadRequest) return { ok: false, message: err.message };
    throw err;
  }
  const previous = (body as Body)['previous_response_id'];
  if (typeof previous === 'string') {
    return { ok: false, status: 404, message: `Response with id '${previous}' not found.` };
  }
  return parseInference('chat', chat, { ...d, eosLength: d.eosLength ?? d.outputTokens });
}

/** The chat request the engines would build from this Responses body. */
function chatRequest(body: Body): Body {
  const model = body['model'];
  if (model !== undefined && model !== null && typeof model !== 'string') {
    throw new BadRequest('model: Input should be a valid string');
  }
  const messages: ChatMessage[] = [];
  const instructions = body['instructions'];
  if (instructions !== undefined && instructions !== null) {
    if (typeof instructions !== 'string') {
      throw new BadRequest('instructions: Input should be a valid string');
    }
    messages.push({ role: 'system', content: instructions });
  }
  const input = body['input'];
  if (input === undefined || input === null) throw new BadRequest('input: Field required');
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  else if (Array.isArray(input))
    input.forEach((item: unknown, i) => messages.push(inputItem(item, i)));
  else throw new BadRequest('input: Input should be a valid string or a list of items');
  if (messages.length === 0) throw new BadRequest('input: at least one item is required');
  checkEcho(body);
  const out: Body = { messages, ...chatTools(body), ...chatFormat(body['text']) };
  if (typeof model === 'string' && model !== '') out['model'] = model;
  const cap = body['max_output_tokens'];
  if (cap !== undefined && cap !== null) {
    if (typeof cap !== 'number' || !Number.isInteger(cap) || cap < 1) {
      throw new BadRequest('max_output_tokens: must be an integer >= 1');
    }
    out['max_tokens'] = cap;
  }
  // What else the engines carry over: the stream flag, vLLM's ignore_eos and the PD fields
  // (vLLM's kv_transfer_params; the bootstrap fields a PD router adds at the top level of a body).
  for (const key of [
    'stream',
    'ignore_eos',
    'kv_transfer_params',
    'bootstrap_host',
    'bootstrap_port',
    'bootstrap_room',
  ]) {
    if (body[key] !== undefined) out[key] = body[key];
  }
  return out;
}

/** One `input` item as the chat message it becomes. */
function inputItem(item: unknown, i: number): ChatMessage {
  const at = `input.${i}`;
  if (!isObject(item)) throw new BadRequest(`${at}: Input should be an object`);
  const type = item['type'];
  if (type === undefined || type === 'message') {
    const role = item['role'];
    if (typeof role !== 'string' || role === '') throw new BadRequest(`${at}.role: Field required`);
    return { role, content: content(item['content'], `${at}.content`) };
  }
  if (typeof type !== 'string') throw new BadRequest(`${at}.type: Input should be a valid string`);
  switch (type) {
    case 'function_call': {
      const [callId, name, args] = ['call_id', 'name', 'arguments'].map((k) => item[k]);
      if (typeof callId !== 'string') throw new BadRequest(`${at}.call_id: Field required`);
      if (typeof name !== 'string') throw new BadRequest(`${at}.name: Field required`);
      if (typeof args !== 'string') throw new BadRequest(`${at}.arguments: Field required`);
      // The assistant turn that made the call, as a chat history carries it.
      return {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: callId, type: 'function', function: { name, arguments: args } }],
      };
    }
    case 'function_call_output': {
      const callId = item['call_id'];
      if (typeof callId !== 'string') throw new BadRequest(`${at}.call_id: Field required`);
      const output = item['output'];
      if (output === undefined || output === null)
        throw new BadRequest(`${at}.output: Field required`);
      return { role: 'tool', tool_call_id: callId, content: content(output, `${at}.output`) };
    }
    case 'reasoning':
      return { role: 'assistant', content: null, reasoning_content: reasoningText(item, at) };
    default:
      throw new BadRequest(`${at}.type: unsupported input item type '${type}'`);
  }
}

/** A string stays a string; parts become the text parts the chat renderer joins. */
function content(c: unknown, at: string): string | ChatPart[] {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) throw new BadRequest(`${at}: Input should be a string or a list of parts`);
  const parts: ChatPart[] = [];
  c.forEach((part: unknown, i) => {
    if (!isObject(part) || typeof part['type'] !== 'string') {
      throw new BadRequest(`${at}.${i}.type: Field required`);
    }
    const type = part['type'];
    const text = type === 'refusal' ? part['refusal'] : part['text'];
    if (TEXT_PARTS.has(type) || type === 'refusal') {
      if (typeof text !== 'string') throw new BadRequest(`${at}.${i}: text required`);
      parts.push({ type: 'text', text });
    }
  });
  return parts;
}

/** A reasoning item's text: its `reasoning_text` parts, else its summary, joined by newlines. */
function reasoningText(item: Body, at: string): string {
  const parts = Array.isArray(item['content']) ? item['content'] : item['summary'];
  if (parts === undefined || parts === null) return '';
  if (!Array.isArray(parts)) throw new BadRequest(`${at}.summary: Input should be a valid list`);
  return parts
    .map((p: unknown) => (isObject(p) && typeof p['text'] === 'string' ? p['text'] : ''))
    .join('\n');
}

/**
 * Responses function tools are flat (`{type: "function", name, parameters}`); the chat form nests
 * them under `function`. Other tool types (hosted, MCP) are not offered to the model, as on the
 * engines' non-Harmony path. `tool_choice` maps to its chat form; a hosted tool's choice leaves
 * the model free (`auto`).
 */
function chatTools(body: Body): Body {
  const out: Body = {};
  const tools = body['tools'];
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw new BadRequest('tools: Input should be a valid list');
    const functions: Body[] = [];
    tools.forEach((t: unknown, i) => {
      if (!isObject(t) || typeof t['type'] !== 'string') {
        throw new BadRequest(`tools.${i}.type: Field required`);
      }
      if (t['type'] !== 'function') return;
      if (typeof t['name'] !== 'string' || t['name'] === '') {
        throw new BadRequest(`tools.${i}.name: Field required`);
      }
      functions.push({
        type: 'function',
        function: { name: t['name'], parameters: t['parameters'] },
      });
    });
    if (functions.length > 0) out['tools'] = functions;
  }
  const choice = body['tool_choice'];
  if (choice === undefined || choice === null) return out;
  if (choice === 'none' || choice === 'auto' || choice === 'required') {
    out['tool_choice'] = choice;
  } else if (isObject(choice) && choice['type'] === 'function') {
    if (typeof choice['name'] !== 'string')
      throw new BadRequest('tool_choice.name: Field required');
    out['tool_choice'] = { type: 'function', function: { name: choice['name'] } };
  } else if (isObject(choice) && choice['type'] === 'allowed_tools') {
    out['tool_choice'] = choice['mode'] === 'required' ? 'required' : 'auto';
  } else if (isObject(choice) && typeof choice['type'] === 'string') {
    out['tool_choice'] = 'auto';
  } else {
    throw new BadRequest("tool_choice: Input should be 'none', 'auto', 'required' or an object");
  }
  return out;
}

/** `text.format` as chat's `response_format`, so the structured-output rules answer it. */
function chatFormat(text: unknown): Body {
  if (text === undefined || text === null) return {};
  if (!isObject(text)) throw new BadRequest('text: Input should be an object');
  const format = text['format'];
  if (format === undefined || format === null) return {};
  if (!isObject(format)) throw new BadRequest('text.format: Input should be an object');
  switch (format['type']) {
    case 'text':
      return {};
    case 'json_object':
      return { response_format: { type: 'json_object' } };
    case 'json_schema': {
      if (typeof format['name'] !== 'string' || format['name'] === '') {
        throw new BadRequest('text.format.name: Field required');
      }
      const schema = format['schema'] ?? { type: 'object' };
      return {
        response_format: { type: 'json_schema', json_schema: { name: format['name'], schema } },
      };
    }
    default:
      throw new BadRequest(
        "text.format.type: Input should be 'text', 'json_object' or 'json_schema'",
      );
  }
}

/** Fields only echoed back still need their types. */
function checkEcho(body: Body): void {
  for (const key of ['stream', 'store', 'parallel_tool_calls', 'background']) {
    const v = body[key];
    if (v !== undefined && v !== null && typeof v !== 'boolean') {
      throw new BadRequest(`${key}: Input should be a valid boolean`);
    }
  }
  for (const key of ['temperature', 'top_p']) {
    const v = body[key];
    if (v !== undefined && v !== null && typeof v !== 'number') {
      throw new BadRequest(`${key}: Input should be a valid number`);
    }
  }
  for (const key of ['metadata', 'reasoning']) {
    const v = body[key];
    if (v !== undefined && v !== null && !isObject(v)) {
      throw new BadRequest(`${key}: Input should be an object`);
    }
  }
  const previous = body['previous_response_id'];
  if (previous !== undefined && previous !== null && typeof previous !== 'string') {
    throw new BadRequest('previous_response_id: Input should be a valid string');
  }
}

function object(body: unknown): Body {
  if (!isObject(body)) throw new BadRequest('request body must be a JSON object');
  return body;
}

function isObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
