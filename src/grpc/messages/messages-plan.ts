/**
 * An Anthropic Messages request (`POST /v1/messages`) as the gRPC pipeline runs it: the
 * conversation turned into chat messages for the model's template, custom tools into function
 * tools, `tool_choice` and `thinking` into their chat equivalents, and the sampling fields the
 * API has. The engine then generates a chat; only the answer's shape is Anthropic's.
 *
 * The conversion follows SMG's (`grpc/utils/message_utils.rs`) with two differences: a user turn's
 * blocks keep their order (SMG moves the text before the tool results, which renders a user turn
 * between a call and its result; Anthropic requires the results first, so the text belongs after
 * them), and `disable_parallel_tool_use` keeps one call per answer (SMG ignores it). Blocks the
 * pipeline cannot carry (images, documents) or a role cannot hold are refused with a 400, never
 * sent to an engine; block types and tool results were checked at the edge
 * (routing/validate-messages.ts).
 */
import { GatewayError } from '../../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../../util/json.js';
import { multimodal, templateMessages } from '../chat-messages.js';
import type { GrpcPlan } from '../plan.js';
import { badParam, messagesSampling } from '../sampling.js';
import { chatToolsOf, toolConstraint } from '../tools.js';

function blocksOf(content: unknown, where: string): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw badParam(`'${where}' must be a string or a list of blocks`);
  return content.map((b, i) => {
    if (!isJsonObject(b) || typeof b.type !== 'string')
      throw badParam(`'${where}[${i}]' must be a content block with a string 'type'`);
    return b;
  });
}

function text(block: JsonObject, where: string): string {
  if (typeof block.text !== 'string') throw badParam(`'${where}.text' must be a string`);
  return block.text;
}

/** Block types an engine would need media for: refused in gRPC mode until images are built. */
const MEDIA_BLOCKS = new Set(['image', 'document', 'search_result']);

function unsupported(type: string, where: string): GatewayError {
  if (MEDIA_BLOCKS.has(type)) return multimodal(`Content block type '${type}' (${where})`);
  return badParam(`'${where}' has type '${type}', which a ${where.split('[')[0]} turn cannot hold`);
}

/** A tool result's text: its string, or its text blocks joined with a newline (as SMG). */
function toolResultText(block: JsonObject, where: string): string {
  const content = block.content;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return blocksOf(content, `${where}.content`)
    .map((b, i) => {
      if (b.type !== 'text') throw unsupported(b.type as string, `${where}.content[${i}]`);
      return text(b, `${where}.content[${i}]`);
    })
    .join('\n');
}

/**
 * A user turn: text blocks become user messages and each `tool_result` a `tool` message, in the
 * order sent, so results follow the call they answer.
 */
function userMessages(content: unknown, where: string): JsonObject[] {
  const out: JsonObject[] = [];
  let texts: string[] = [];
  const flush = () => {
    if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n') });
    texts = [];
  };
  blocksOf(content, where).forEach((b, i) => {
    const at = `${where}[${i}]`;
    if (b.type === 'text') texts.push(text(b, at));
    else if (b.type === 'tool_result') {
      const id = b.tool_use_id;
      if (typeof id !== 'string') throw badParam(`'${at}.tool_use_id' must be a string`);
      flush();
      out.push({ role: 'tool', tool_call_id: id, content: toolResultText(b, at) });
    } else throw unsupported(b.type as string, at);
  });
  flush();
  return out;
}

/** An assistant turn: text, tool calls (arguments as JSON) and thinking as reasoning_content. */
function assistantMessage(content: unknown, where: string): JsonObject {
  const texts: string[] = [];
  const toolCalls: JsonObject[] = [];
  const thinking: string[] = [];
  blocksOf(content, where).forEach((b, i) => {
    const at = `${where}[${i}]`;
    switch (b.type) {
      case 'text':
        texts.push(text(b, at));
        return;
      case 'tool_use': {
        if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isJsonObject(b.input))
          throw badParam(`'${at}' must have a string 'id' and 'name' and an object 'input'`);
        toolCalls.push({
          id: b.id,
          type: 'function',
          function: { name: b.name, arguments: b.input },
        });
        return;
      }
      case 'thinking':
        if (typeof b.thinking !== 'string') throw badParam(`'${at}.thinking' must be a string`);
        thinking.push(b.thinking);
        return;
      // Encrypted by another provider: nothing a local model can read.
      case 'redacted_thinking':
        return;
      default:
        throw unsupported(b.type as string, at);
    }
  });
  const message: JsonObject = {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thinking.length > 0) message.reasoning_content = thinking.join('\n');
  return message;
}

function systemText(system: unknown, where: string): string {
  return blocksOf(system, where)
    .map((b, i) => {
      if (b.type !== 'text') throw badParam(`'${where}[${i}]' must be a text block`);
      return text(b, `${where}[${i}]`);
    })
    .join('\n');
}

/** The conversation as OpenAI chat messages, `system` first. */
export function chatMessagesOf(body: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  if (body.system !== undefined && body.system !== null)
    out.push({ role: 'system', content: systemText(body.system, 'system') });
  const messages = body.messages;
  if (!Array.isArray(messages)) throw badParam("'messages' must be a list");
  messages.forEach((m, i) => {
    const where = `messages[${i}].content`;
    if (!isJsonObject(m)) throw badParam(`'messages[${i}]' must be an object`);
    if (m.role === 'user') out.push(...userMessages(m.content, where));
    else if (m.role === 'assistant') out.push(assistantMessage(m.content, where));
    // Claude Code sends these inside `messages`: kept in place, as SMG does.
    else if (m.role === 'system')
      out.push({ role: 'system', content: systemText(m.content, where) });
    else throw badParam(`'messages[${i}].role' must be "user" or "assistant"`);
  });
  return out;
}

/**
 * Custom tools (`{name, description?, input_schema}`) as function tools; Anthropic's server tools
 * (bash, text_editor, web_search, …) need the provider to run them and are left out, as SMG does.
 */
function functionTools(tools: unknown): JsonObject[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw badParam("'tools' must be a list");
  const out: JsonObject[] = [];
  tools.forEach((t, i) => {
    if (!isJsonObject(t)) throw badParam(`'tools[${i}]' must be an object`);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') return;
    if (typeof t.name !== 'string' || t.name === '')
      throw badParam(`'tools[${i}].name' must be a non-empty string`);
    if (!isJsonObject(t.input_schema))
      throw badParam(`'tools[${i}].input_schema' must be an object`);
    const fn: JsonObject = { name: t.name, parameters: t.input_schema };
    if (typeof t.description === 'string') fn.description = t.description;
    out.push({ type: 'function', function: fn });
  });
  return out;
}

/** Anthropic's tool_choice as chat's: any → required, tool → that function, none → none. */
function chatToolChoice(choice: unknown): { choice: unknown; parallel: boolean } {
  if (choice === undefined || choice === null) return { choice: undefined, parallel: true };
  if (!isJsonObject(choice)) throw badParam("'tool_choice' must be an object");
  const parallel = choice.disable_parallel_tool_use !== true;
  switch (choice.type) {
    case 'auto':
      return { choice: 'auto', parallel };
    case 'any':
      return { choice: 'required', parallel };
    case 'none':
      return { choice: 'none', parallel };
    case 'tool':
      if (typeof choice.name !== 'string') throw badParam("'tool_choice.name' must be a string");
      return { choice: { type: 'function', function: { name: choice.name } }, parallel };
    default:
      throw badParam(`'tool_choice.type' must be "auto", "any", "tool" or "none"`);
  }
}

/** `thinking` as the template's toggle; undefined leaves the template's default (SMG). */
function thinkingOf(thinking: unknown): boolean | undefined {
  if (thinking === undefined || thinking === null) return undefined;
  const type = isJsonObject(thinking) ? thinking.type : undefined;
  if (type === 'enabled' || type === 'adaptive') return true;
  if (type === 'disabled') return false;
  throw badParam(`'thinking.type' must be "enabled", "adaptive" or "disabled"`);
}

export function messagesPlan(body: JsonObject, stream: boolean): GrpcPlan {
  const { choice, parallel } = chatToolChoice(body.tool_choice);
  const chat: JsonObject = {
    messages: chatMessagesOf(body),
    tools: functionTools(body.tools),
    tool_choice: choice,
    parallel_tool_calls: parallel,
  };
  const tools = chatToolsOf(chat);
  const thinking = thinkingOf(body.thinking);
  let sampling = messagesSampling(body);
  const constraint = tools === undefined ? undefined : toolConstraint(tools);
  if (constraint !== undefined) sampling = { ...sampling, constraint };
  return {
    kind: 'messages',
    stream,
    includeUsage: false,
    sampling,
    tools,
    // As SMG: reasoning is split into thinking blocks only when the client asked for thinking.
    separateReasoning: thinking === true,
    logprobs: undefined,
    echo: false,
    prompt: {
      kind: 'chat',
      input: {
        messages: templateMessages(chat),
        addGenerationPrompt: true,
        tools: tools?.templateTools,
        thinking,
      },
    },
  };
}
