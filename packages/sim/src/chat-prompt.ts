// The chat prompt as the simulator lays it out: what its tokens are counted on, its seeded words
// hashed from, and its `<sim-answer>` directive read from. Each message in order (system, user,
// assistant, tool results alike), as a chat template renders the whole conversation.
import { BadRequest } from './bad-request.js';

type Body = Record<string, unknown>;

/**
 * Chat prompt rendering: each message becomes `<role>: <text>\n`, where text joins the text parts
 * of array content. Token counts and the output seed come from this rendering.
 */
export function renderChat(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new BadRequest("'messages' must be a non-empty array");
  }
  let out = '';
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) throw new BadRequest('each message must be an object');
    const { role, content } = m as Body;
    if (typeof role !== 'string') throw new BadRequest("each message needs a string 'role'");
    out += `${role}: ${contentText(content)}\n`;
  }
  return out;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw new BadRequest("message 'content' must be a string or array");
  let text = '';
  for (const part of content) {
    if (typeof part === 'object' && part !== null && typeof (part as Body)['text'] === 'string') {
      text += (text === '' ? '' : ' ') + String((part as Body)['text']);
    }
  }
  return text;
}
