/**
 * The edge checks of an Anthropic Messages body, in every mode, as SMG's typed
 * `CreateMessageRequest` refuses them (`crates/protocols/src/messages.rs`): a model and a non-empty
 * message list, `max_tokens` of at least 1, content blocks of the types SMG knows, a `tool_choice`
 * other than `none` only with tools, a named `tool_choice` only for a tool the request has. And,
 * as Anthropic's API refuses it, a `tool_result` must answer a `tool_use` of the assistant turn
 * just before it: a conversation that breaks this never reaches a worker. What a role may hold
 * and what can be rendered is checked where the gateway renders the prompt (gRPC mode).
 */
import { GatewayError } from '../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { U32_MAX } from '../util/rust-int-limits.js';

const ROLES = new Set(['user', 'assistant', 'system']);

function invalid(message: string): GatewayError {
  return new GatewayError('invalid_body', message);
}

/** The input block types of SMG's `InputContentBlock`: any other is refused at the edge. */
const BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'search_result',
  'web_search_tool_result',
  'tool_search_tool_result',
  'tool_reference',
]);

function checkContent(content: unknown, where: string): JsonObject[] {
  if (typeof content === 'string') return [];
  if (!Array.isArray(content))
    throw invalid(`Field '${where}' must be a string or a list of blocks`);
  return content.map((block, i) => {
    if (!isJsonObject(block) || typeof block.type !== 'string')
      throw invalid(`Field '${where}[${i}]' must be a content block with a string 'type'`);
    if (!BLOCK_TYPES.has(block.type))
      throw invalid(`Field '${where}[${i}]' has an unknown block type '${block.type}'`);
    return block;
  });
}

/**
 * Each `tool_result` answers a `tool_use` id of the assistant turn right before its turn; the ids
 * an assistant turn calls are kept until the next turn has had its chance to answer them.
 */
function checkToolResults(messages: readonly unknown[], blocks: readonly JsonObject[][]): void {
  let calls = new Set<string>();
  messages.forEach((m, i) => {
    const role = (m as JsonObject).role;
    if (role === 'system') return;
    const here = blocks[i] ?? [];
    if (role === 'assistant') {
      calls = new Set(
        here
          .filter((b) => b.type === 'tool_use' && typeof b.id === 'string')
          .map((b) => b.id as string),
      );
      return;
    }
    here.forEach((b, k) => {
      if (b.type !== 'tool_result') return;
      if (typeof b.tool_use_id !== 'string')
        throw invalid(`Field 'messages[${i}].content[${k}].tool_use_id' must be a string`);
      if (!calls.has(b.tool_use_id))
        throw invalid(
          `'messages[${i}].content[${k}]' answers tool_use '${b.tool_use_id}', which the assistant turn before it does not hold`,
        );
    });
    calls = new Set();
  });
}

function checkTools(body: JsonObject): string[] {
  const tools = body.tools;
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid("Field 'tools' must be a list");
  return tools.map((t, i) => {
    if (!isJsonObject(t)) throw invalid(`Field 'tools[${i}]' must be an object`);
    return typeof t.name === 'string' ? t.name : '';
  });
}

function checkToolChoice(body: JsonObject, names: readonly string[]): void {
  const choice = body.tool_choice;
  if (choice === undefined || choice === null) return;
  if (!isJsonObject(choice) || typeof choice.type !== 'string')
    throw invalid("Field 'tool_choice' must be an object with a string 'type'");
  if (choice.type === 'none') return;
  if (names.length === 0) throw invalid(`A 'tool_choice' of type '${choice.type}' needs 'tools'`);
  if (choice.type === 'tool' && !names.includes(choice.name as string))
    throw invalid(
      `'tool_choice' names '${String(choice.name)}', which is not one of the request's tools`,
    );
}

/** `count_tokens` bodies are a Messages body without `max_tokens` (nothing is generated). */
export function validateMessages(body: JsonObject, opts: { countOnly?: boolean } = {}): void {
  if (typeof body.model !== 'string' || body.model === '')
    throw invalid("Field 'model' is required and must be a non-empty string");
  const max = body.max_tokens;
  const bad = typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > U32_MAX;
  if (bad && !(opts.countOnly === true && max === undefined))
    throw invalid(`Field 'max_tokens' is required and must be an integer from 1 to ${U32_MAX}`);
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0)
    throw invalid("Field 'messages' must be a non-empty list");
  const blocks = messages.map((m, i) => {
    if (!isJsonObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role))
      throw invalid(`Field 'messages[${i}]' must be an object with role "user" or "assistant"`);
    return checkContent(m.content, `messages[${i}].content`);
  });
  checkToolResults(messages, blocks);
  if (body.system !== undefined && body.system !== null) checkContent(body.system, 'system');
  const stops = body.stop_sequences;
  if (stops !== undefined && stops !== null) {
    if (!Array.isArray(stops) || !stops.every((s) => typeof s === 'string'))
      throw invalid("Field 'stop_sequences' must be a list of strings");
  }
  checkToolChoice(body, checkTools(body));
}
