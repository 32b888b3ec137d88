// Anthropic Messages requests (/v1/messages, /v1/messages/count_tokens). SGLang and vLLM validate
// the Anthropic body, convert it to a chat request and run that; the simulator does the same, so a
// Messages request is planned by the chat parser: the same rendering, token count, prefix-cache
// keys, seeded answer and PD fields as the equivalent chat request. `system` becomes a leading
// system message; text blocks and tool results' text become text parts; images, tool calls and
// thinking blocks carry no text the simulator counts. Tools and tool_choice become their chat
// forms, so a tool-call answer is parsed as on chat.
import type { ParseResult, PlanDefaults } from './request-parse.js';
import { parseInference } from './request-parse.js';

type Body = Record<string, unknown>;
type ChatPart = { type: 'text'; text: string };
type ChatContent = string | ChatPart[];

export type CountResult = { ok: true; inputTokens: number } | { ok: false; message: string };

class BadRequest extends Error {}

// vLLM also accepts (and hoists) system messages inside `messages`; SGLang only user/assistant.
const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system']);
const TOOL_CHOICES: ReadonlySet<string> = new Set(['auto', 'any', 'tool', 'none']);

/**
 * Plans a `POST /v1/messages` body; the plan is a chat generation of one output. `max_tokens` is
 * required here, so it is only a cap: the answer ends naturally (`end_turn`) where a chat request
 * without a cap would, after `--eos-length` or else `--output-tokens` tokens, unless the cap comes
 * first (`max_tokens`). Running every request to its cap would make each answer as long as the
 * 4096 tokens clients typically ask for.
 */
export function parseMessages(body: unknown, d: PlanDefaults): ParseResult {
  const natural = { ...d, eosLength: d.eosLength ?? d.outputTokens };
  return guarded(() => parseInference('chat', chatRequest(object(body), true), natural));
}

/** `POST /v1/messages/count_tokens`: the prompt tokens /v1/messages would count for this body. */
export function countMessagesTokens(body: unknown, d: PlanDefaults): CountResult {
  return guarded(() => {
    const parsed = parseInference('chat', chatRequest(object(body), false), {
      model: d.model,
      outputTokens: d.outputTokens,
    });
    return parsed.ok ? { ok: true, inputTokens: parsed.plan.promptTokens } : parsed;
  });
}

function guarded<T>(
  f: () => T | { ok: false; message: string },
): T | { ok: false; message: string } {
  try {
    return f();
  } catch (err) {
    if (err instanceof BadRequest) return { ok: false, message: err.message };
    throw err;
  }
}

/** The chat request the engines would build from this Messages body. */
function chatRequest(body: Body, generate: boolean): Body {
  const model = body['model'];
  if (typeof model !== 'string' || model === '') throw new BadRequest('model: Field required');
  const messages = body['messages'];
  if (messages === undefined || messages === null) throw new BadRequest('messages: Field required');
  if (!Array.isArray(messages)) throw new BadRequest('messages: Input should be a valid list');
  if (messages.length === 0) throw new BadRequest('messages: at least one message is required');
  const chat: { role: string; content: ChatContent }[] = [];
  const system = body['system'];
  if (system !== undefined && system !== null) {
    chat.push({ role: 'system', content: content(system, 'system') });
  }
  messages.forEach((m: unknown, i) => chat.push(message(m, `messages.${i}`)));
  checkTools(body);
  const out: Body = { model, messages: chat };
  if (!generate) return out;
  const maxTokens = body['max_tokens'];
  if (maxTokens === undefined || maxTokens === null) {
    throw new BadRequest('max_tokens: Field required');
  }
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new BadRequest('max_tokens: must be an integer >= 1');
  }
  checkSampling(body);
  // Only what the engines carry over: the cap, the tools, the stream flag and the PD fields
  // (vLLM's kv_transfer_params; the bootstrap fields a PD router adds at the top level of any body).
  out['max_tokens'] = maxTokens;
  Object.assign(out, chatTools(body));
  for (const key of ['stream', 'kv_transfer_params', 'bootstrap_host', 'bootstrap_port']) {
    if (body[key] !== undefined) out[key] = body[key];
  }
  return out;
}

function message(m: unknown, at: string): { role: string; content: ChatContent } {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    throw new BadRequest(`${at}: Input should be an object`);
  }
  const { role, content: c } = m as Body;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw new BadRequest(`${at}.role: Input should be 'user' or 'assistant'`);
  }
  return { role, content: content(c, `${at}.content`) };
}

/** A string stays a string; blocks become the text parts the chat renderer joins. */
function content(c: unknown, at: string): ChatContent {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c))
    throw new BadRequest(`${at}: Input should be a string or a list of blocks`);
  const parts: ChatPart[] = [];
  c.forEach((block: unknown, i) => {
    const b = typedBlock(block, `${at}.${i}`);
    if (b['type'] === 'text') {
      if (typeof b['text'] !== 'string') throw new BadRequest(`${at}.${i}.text: Field required`);
      parts.push({ type: 'text', text: b['text'] });
    } else if (b['type'] === 'tool_result') {
      const text = toolResultText(b['content'], `${at}.${i}.content`);
      if (text !== '') parts.push({ type: 'text', text });
    }
  });
  return parts;
}

/** A tool result's content: a string, or blocks whose text blocks count. */
function toolResultText(c: unknown, at: string): string {
  if (c === undefined || c === null) return '';
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) throw new BadRequest(`${at}: Input should be a string or a list`);
  const texts: string[] = [];
  c.forEach((block: unknown, i) => {
    const b = typedBlock(block, `${at}.${i}`);
    if (b['type'] === 'text' && typeof b['text'] === 'string') texts.push(b['text']);
  });
  return texts.join('\n');
}

function typedBlock(block: unknown, at: string): Body {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    throw new BadRequest(`${at}: Input should be an object`);
  }
  if (typeof (block as Body)['type'] !== 'string')
    throw new BadRequest(`${at}.type: Field required`);
  return block as Body;
}

/**
 * Tools are not rendered into the prompt (the simulator has no chat template), only checked here
 * and converted by `chatTools`.
 */
function checkTools(body: Body): void {
  const tools = body['tools'];
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw new BadRequest('tools: Input should be a valid list');
    tools.forEach((t: unknown, i) => {
      if (typeof t !== 'object' || t === null || typeof (t as Body)['name'] !== 'string') {
        throw new BadRequest(`tools.${i}.name: Field required`);
      }
    });
  }
  const choice = body['tool_choice'];
  if (choice !== undefined && choice !== null) {
    const type = typeof choice === 'object' ? (choice as Body)['type'] : undefined;
    if (typeof type !== 'string' || !TOOL_CHOICES.has(type)) {
      throw new BadRequest("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
    }
    if (type === 'tool' && typeof (choice as Body)['name'] !== 'string') {
      throw new BadRequest('tool_choice.name: Field required');
    }
  }
}

/**
 * Anthropic tools as chat tools, the way vLLM converts them: `input_schema` becomes the function's
 * `parameters`; `tool_choice` `auto`/`any`/`tool`/`none` becomes `auto`/`required`/the named
 * function/`none`. The chat tool rules then decide the answer, as for /v1/chat/completions.
 */
function chatTools(body: Body): Body {
  const out: Body = {};
  const tools = body['tools'];
  if (Array.isArray(tools)) {
    out['tools'] = tools.map((t: Body) => ({
      type: 'function',
      function: { name: t['name'], parameters: t['input_schema'] },
    }));
  }
  const choice = body['tool_choice'] as Body | undefined | null;
  if (choice === undefined || choice === null) return out;
  const type = choice['type'];
  if (type === 'any') out['tool_choice'] = 'required';
  else if (type === 'tool')
    out['tool_choice'] = { type: 'function', function: { name: choice['name'] } };
  else out['tool_choice'] = type;
  return out;
}

/** Sampling fields are accepted and ignored (canned words), but must have their types. */
function checkSampling(body: Body): void {
  for (const key of ['temperature', 'top_p']) {
    const v = body[key];
    if (v !== undefined && v !== null && typeof v !== 'number') {
      throw new BadRequest(`${key}: Input should be a valid number`);
    }
  }
  const topK = body['top_k'];
  if (topK !== undefined && topK !== null && !Number.isInteger(topK)) {
    throw new BadRequest('top_k: Input should be a valid integer');
  }
  const stops = body['stop_sequences'];
  if (
    stops !== undefined &&
    stops !== null &&
    !(Array.isArray(stops) && stops.every((s) => typeof s === 'string'))
  ) {
    throw new BadRequest('stop_sequences: Input should be a list of strings');
  }
  for (const key of ['metadata', 'thinking']) {
    const v = body[key];
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) {
      throw new BadRequest(`${key}: Input should be an object`);
    }
  }
}

function object(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequest('request body must be a JSON object');
  }
  return body as Body;
}
