/**
 * The text a prefix-affinity policy matches on: what the engine will see as the prompt prefix.
 * For chat that is the whole conversation in order, not just the first message (SGLang's router
 * matched only the first user turn, so every conversation sharing a system prompt looked alike).
 * A new turn only appends, so a conversation's text stays a prefix of its next request's.
 */
import type { JsonObject } from '../util/json.js';
import type { Endpoint } from './endpoint.js';

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    let out = '';
    for (const part of content) {
      if (
        part !== null &&
        typeof part === 'object' &&
        typeof (part as { text?: unknown }).text === 'string'
      ) {
        out += (part as { text: string }).text;
      }
    }
    return out;
  }
  return '';
}

function chatText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  let out = '';
  for (const m of messages) {
    if (m === null || typeof m !== 'object') continue;
    const { role, content } = m as { role?: unknown; content?: unknown };
    out += `<|${typeof role === 'string' ? role : 'user'}|>\n${contentText(content)}\n`;
  }
  return out;
}

function promptText(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && typeof prompt[0] === 'string') return prompt[0];
  return '';
}

export function routingText(endpoint: Endpoint, body: JsonObject): string {
  switch (endpoint) {
    case 'chat':
      return chatText(body.messages);
    case 'completion':
      return promptText(body.prompt);
    case 'generate':
      return promptText(body.text);
    case 'responses':
      return typeof body.input === 'string' ? body.input : chatText(body.input);
    case 'messages':
      // The system prompt renders first, so it leads the prefix (its blocks read as parts do).
      return `<|system|>\n${contentText(body.system)}\n${chatText(body.messages)}`;
    case 'embeddings':
      return promptText(body.input);
    case 'rerank':
      return typeof body.query === 'string' ? body.query : '';
  }
}
