/**
 * A Responses request's input items as OpenAI chat messages, which the model's chat template
 * renders: messages keep their role, a run of `function_call` items is one assistant turn with
 * those tool calls (after any reasoning and text of the same turn), each `function_call_output`
 * a `tool` message, and `reasoning` the assistant's `reasoning_content`. `instructions` come
 * first as a system message.
 *
 * It differs from SMG's conversion on purpose in three ways: a `developer` message is a system
 * message (SMG makes it a user turn, so the model reads the developer's rules as the user's
 * words); parallel calls of one turn stay one assistant message (SMG writes one message per call,
 * which templates render as separate turns the model never wrote); and text parts are joined with
 * a newline, as chat's are. Items a local model cannot take (MCP, computer, shell and other
 * hosted-tool items) are a 400 `convert_request_failed`, as in SMG; images are refused until
 * gRPC mode carries them.
 */
import { GatewayError } from '../../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../../util/json.js';
import { multimodal } from '../chat-messages.js';

function convertFailed(message: string): GatewayError {
  return new GatewayError('convert_request_failed', message);
}

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text', 'refusal', 'summary_text']);
const MEDIA_PARTS = new Set(['input_image', 'input_file', 'input_audio']);

/** A content value's text: a string, or its text parts joined with a newline. */
function textOf(content: unknown, where: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw convertFailed(`'${where}' must be a string or a list of parts`);
  return content
    .map((part, i) => {
      const type = isJsonObject(part) ? part.type : undefined;
      if (typeof type !== 'string') throw convertFailed(`'${where}[${i}]' must be a content part`);
      if (MEDIA_PARTS.has(type)) throw multimodal(`Content part type '${type}'`);
      if (!TEXT_PARTS.has(type)) throw convertFailed(`Unsupported content part type '${type}'`);
      const text = (part as JsonObject)[type === 'refusal' ? 'refusal' : 'text'];
      return typeof text === 'string' ? text : '';
    })
    .join('\n');
}

/** A reasoning item's text: its `reasoning_text` parts, else its summary. */
function reasoningText(item: JsonObject): string {
  const parts =
    Array.isArray(item.content) && item.content.length > 0 ? item.content : item.summary;
  if (!Array.isArray(parts)) return '';
  return parts
    .map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

const ROLES: Readonly<Record<string, string>> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
};

/** Builds the chat messages, merging what belongs to one assistant turn. */
class ChatBuilder {
  readonly messages: JsonObject[] = [];
  /** The assistant message still open for this turn's reasoning, text and calls. */
  #turn: JsonObject | undefined;

  #assistant(): JsonObject {
    if (this.#turn === undefined) {
      this.#turn = { role: 'assistant', content: null };
      this.messages.push(this.#turn);
    }
    return this.#turn;
  }

  message(role: string, text: string): void {
    if (role !== 'assistant') {
      this.#turn = undefined;
      this.messages.push({ role, content: text });
      return;
    }
    const turn = this.#assistant();
    // Text after this turn's calls is a new turn: a template puts calls after the text.
    if (turn.tool_calls !== undefined) {
      this.#turn = undefined;
      this.#assistant().content = text;
    } else turn.content = typeof turn.content === 'string' ? `${turn.content}\n${text}` : text;
  }

  reasoning(text: string): void {
    let turn = this.#assistant();
    if (turn.content !== null || turn.tool_calls !== undefined) {
      this.#turn = undefined;
      turn = this.#assistant();
    }
    turn.reasoning_content =
      typeof turn.reasoning_content === 'string' ? `${turn.reasoning_content}\n${text}` : text;
  }

  call(callId: string, name: string, args: string): void {
    const turn = this.#assistant();
    const calls = (turn.tool_calls ??= []) as JsonObject[];
    calls.push({ id: callId, type: 'function', function: { name, arguments: args } });
  }

  output(callId: string, text: string): void {
    this.#turn = undefined;
    this.messages.push({ role: 'tool', tool_call_id: callId, content: text });
  }
}

function addItem(b: ChatBuilder, item: JsonObject, where: string): void {
  const type = typeof item.type === 'string' ? item.type : 'message';
  switch (type) {
    case 'message': {
      const role = ROLES[item.role as string];
      if (role === undefined)
        throw convertFailed(`'${where}.role' must be user, assistant, system or developer`);
      b.message(role, textOf(item.content, `${where}.content`));
      return;
    }
    case 'function_call': {
      if (typeof item.name !== 'string' || item.name === '')
        throw convertFailed(`'${where}.name' must be a non-empty string`);
      const args = typeof item.arguments === 'string' ? item.arguments : '{}';
      b.call(item.call_id as string, item.name, args);
      // SMG's stored calls may carry their output on the call item itself.
      if (item.output !== undefined && item.output !== null)
        b.output(item.call_id as string, textOf(item.output, `${where}.output`));
      return;
    }
    case 'function_call_output':
      b.output(item.call_id as string, textOf(item.output, `${where}.output`));
      return;
    case 'reasoning': {
      const text = reasoningText(item);
      if (text !== '') b.reasoning(text);
      return;
    }
    default:
      throw convertFailed(`Unsupported input item type '${type}' (${where})`);
  }
}

/** The chat messages of `instructions` and the (history-expanded) input items. */
export function chatMessagesOfInput(instructions: unknown, input: unknown): JsonObject[] {
  const b = new ChatBuilder();
  if (typeof instructions === 'string' && instructions !== '') b.message('system', instructions);
  if (typeof input === 'string') b.message('user', input);
  else if (Array.isArray(input))
    input.forEach((item, i) => {
      if (!isJsonObject(item)) throw convertFailed(`'input[${i}]' must be an object`);
      addItem(b, item, `input[${i}]`);
    });
  if (!b.messages.some((m) => m.role !== 'system'))
    throw convertFailed('Request must contain at least one message');
  return b.messages;
}
