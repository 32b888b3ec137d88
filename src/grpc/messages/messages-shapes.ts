/**
 * The Anthropic Messages answer of a gRPC generation: the whole message body, and the pieces the
 * stream framer shares with it (stop reason, usage, tool_use ids and inputs). Shapes as SMG's
 * Messages pipeline answers them: blocks in the order thinking, text, tool_use; `usage` with
 * zero cache counts.
 */
import type { WireToolCall } from '../chat-output.js';
import type { ChoiceState } from '../choice.js';
import type { ResponseMeta } from '../formats.js';

export interface StopInfo {
  stop_reason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stop_sequence: string | null;
}

/**
 * Tool calls → `tool_use`; a stop string of the request → `stop_sequence`, naming it; the length
 * cap → `max_tokens`; anything else (EOS, a stop token) → `end_turn`.
 */
export function stopInfoOf(c: ChoiceState): StopInfo {
  const reason = c.clientFinishReason;
  if (reason === 'tool_calls') return { stop_reason: 'tool_use', stop_sequence: null };
  if (reason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  // A matched stop string is one of the client's; a number is a token id (EOS, stop_token_ids).
  if (typeof c.matchedStop === 'string')
    return { stop_reason: 'stop_sequence', stop_sequence: c.matchedStop };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/**
 * Anthropic's ids for tool calls start `toolu_`: SDKs and tools match the prefix. OpenAI-style
 * `call_` ids keep their suffix, so the stream and the whole body agree and the client's echo is
 * the same opaque id; other shapes (Kimi's `functions.name:0`) are rendered back into the prompt
 * by their templates and pass unchanged.
 */
export function toolUseId(id: string): string {
  return id.startsWith('call_') ? `toolu_${id.slice(5)}` : id;
}

/** The `input` object of a tool call whose arguments are JSON text; `{}` when they are not. */
export function toolInput(args: string): unknown {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function usageOf(inputTokens: number, outputTokens: number): Record<string, number> {
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function toolUseBlock(call: WireToolCall): Record<string, unknown> {
  return {
    type: 'tool_use',
    id: toolUseId(call.id),
    name: call.function.name,
    input: toolInput(call.function.arguments),
  };
}

/** The whole (non-streamed) message of the request's one sample. */
export function messageBody(meta: ResponseMeta, c: ChoiceState): Record<string, unknown> {
  const parsed = c.parsed ?? { reasoning: '', content: c.text, toolCalls: [] };
  const content: Record<string, unknown>[] = [];
  if (parsed.reasoning !== '')
    content.push({ type: 'thinking', thinking: parsed.reasoning, signature: '' });
  // Whitespace between a thinking block and a call is no text the model meant to say.
  if (parsed.content.trim() !== '') content.push({ type: 'text', text: parsed.content });
  for (const call of parsed.toolCalls) content.push(toolUseBlock(call));
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    ...stopInfoOf(c),
    usage: usageOf(c.promptTokens, c.completionTokens),
  };
}
