/**
 * A compiled chat template and the context it is rendered with, as SMG's `render_chat_template`
 * builds it (grpc-mode.md §3.1, "Template context"; §2.1 step 1(d)).
 */
import { Template } from '@huggingface/jinja';
import { ChatTemplateError, type ChatTemplateInput } from './types.js';

/** The special-token strings a template may read; only those present in tokenizer_config. */
export interface TemplateSpecialTokens {
  bos_token?: string;
  eos_token?: string;
  unk_token?: string;
  pad_token?: string;
}

// A template that loops over a message's content expects OpenAI parts ([{type, text}]); any
// other template expects a string. SMG detects this from the template AST; v1 looks at the
// source for `for <x> in <message>.content` or `<message>['content']`, which is how every
// parts-aware template we know of iterates.
const ITERATES_CONTENT = /\bfor\s+\w+\s+in\s+\w+\s*(?:\.content\b|\[\s*['"]content['"]\s*\])/;

/**
 * The variable a template reads as its thinking toggle, found in its source as SMG finds it:
 * `enable_thinking` (Qwen3, GLM, Nemotron), else a bare `thinking` tested or set by the template
 * (DeepSeek V3.1, Kimi K2.5); the trailing space or operator keeps `thinking_budget` and the
 * like from counting. Undefined: the template has no toggle.
 */
function thinkingKeyOf(source: string): 'enable_thinking' | 'thinking' | undefined {
  if (source.includes('enable_thinking')) return 'enable_thinking';
  if (/\bif thinking |\bthinking is |\bthinking ==|\bset thinking /.test(source)) return 'thinking';
  return undefined;
}

export class ChatTemplate {
  readonly #template: Template;
  /** True when message content is passed as OpenAI parts rather than flattened to a string. */
  readonly contentAsParts: boolean;
  /** The template's own thinking-toggle variable, which `ChatTemplateInput.thinking` sets. */
  readonly thinkingKey: 'enable_thinking' | 'thinking' | undefined;

  /** Compiles once; a syntax error is a ChatTemplateError naming the source. */
  constructor(
    source: string,
    readonly origin: string,
  ) {
    try {
      this.#template = new Template(source);
    } catch (err) {
      throw new ChatTemplateError(`chat template ${origin} does not parse: ${messageOf(err)}`);
    }
    this.contentAsParts = ITERATES_CONTENT.test(source);
    this.thinkingKey = thinkingKeyOf(source);
  }

  /**
   * Renders the conversation. `continueFinalMessage` pops the last assistant message, renders
   * the rest with a generation prompt and appends that message's content verbatim, so the
   * model continues it instead of starting a new turn.
   */
  render(input: ChatTemplateInput, special: TemplateSpecialTokens): string {
    const messages = input.messages.map((m) => this.#prepareMessage(m));
    let tail = '';
    let addGenerationPrompt = input.addGenerationPrompt;
    const last = messages.at(-1);
    // As SMG: only an assistant message is continued; otherwise the flag changes nothing.
    if (input.continueFinalMessage === true && last?.role === 'assistant') {
      messages.pop();
      tail = contentText(last.content);
      addGenerationPrompt = true;
    }
    // Keys absent from the context are undefined to the template, so `tools is defined` and
    // `bos_token is defined` guards work; a key set to null would be defined (and none).
    const context: Record<string, unknown> = {
      messages,
      add_generation_prompt: addGenerationPrompt,
      ...special,
    };
    if (input.tools !== undefined) context.tools = input.tools;
    if (input.documents !== undefined) context.documents = input.documents;
    // The request's wish under the template's own name for it; explicit kwargs still win.
    if (input.thinking !== undefined && this.thinkingKey !== undefined)
      context[this.thinkingKey] = input.thinking;
    if (input.chatTemplateKwargs !== undefined) Object.assign(context, input.chatTemplateKwargs);
    let rendered: string;
    try {
      rendered = this.#template.render(context);
    } catch (err) {
      // raise_exception(msg) throws an Error whose message is msg; every other render failure
      // (a missing filter, a type error) is the template's too and is shown the same way.
      throw new ChatTemplateError(messageOf(err));
    }
    return rendered + tail;
  }

  #prepareMessage(message: Record<string, unknown>): Record<string, unknown> {
    if (this.contentAsParts || !Array.isArray(message.content)) return message;
    return { ...message, content: joinTextParts(message.content) };
  }
}

/**
 * A template that prints content as a string gets the text parts joined with a newline, as SMG
 * and vLLM join them; other part types were refused before rendering (grpc/chat-messages.ts).
 */
function joinTextParts(parts: readonly unknown[]): string {
  const texts: string[] = [];
  for (const part of parts) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') {
      texts.push(part.text);
    }
  }
  return texts.join('\n');
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return joinTextParts(content);
  return '';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
