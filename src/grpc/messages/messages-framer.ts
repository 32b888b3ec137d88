/**
 * The Anthropic Messages stream of a gRPC generation, as Anthropic frames it (`event: <type>` then
 * `data: <json>`): `message_start` and a `ping` at the first output, then one content block at a
 * time (`content_block_start`, its deltas, `content_block_stop`) with the index counting up:
 * `thinking` (`thinking_delta`) while the reasoning parser says so, `text` (`text_delta`), one
 * `tool_use` per call (`input_json_delta` with the arguments' text as the parser streams it);
 * then `message_delta` with the stop reason and usage, and `message_stop`. A failure after the
 * head is one `error` event.
 *
 * Text that is only whitespace is held until real text follows it, so the newlines a model writes
 * between its thinking and a tool call open no empty text block (the whole body drops them too).
 */
import type { EngineOutput } from '../../engine/types.js';
import type { ChatDelta, WireToolCallDelta } from '../chat-output.js';
import type { ChoiceState } from '../choice.js';
import type { ResponseMeta } from '../formats.js';
import type { StreamFramer } from '../stream-framer.js';
import { stopInfoOf, toolUseId, usageOf } from './messages-shapes.js';

export function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const PING = event('ping', {});

type BlockKind = 'thinking' | 'text' | 'tool_use';

export class MessagesFramer implements StreamFramer {
  #started = false;
  /** The open block's kind and index; undefined between blocks. */
  #open: { kind: BlockKind; index: number } | undefined;
  #nextIndex = 0;
  /** Whitespace-only text not yet shown (see the file comment). */
  #heldWhitespace = '';

  constructor(
    private readonly meta: ResponseMeta,
    /** The prompt's token count, known before the engine answers. */
    private readonly inputTokens: number,
  ) {}

  frames(out: EngineOutput, c: ChoiceState): string {
    return this.#start() + this.#parts(c.streamedDelta(out));
  }

  closing(choices: readonly ChoiceState[]): string {
    let frames = this.#start();
    const c = choices[0];
    if (c !== undefined && !c.completed) {
      // The stream ended without the sample's complete: what its decoder and parsers hold.
      frames += this.#parts(c.heldDelta());
    }
    frames += this.#close();
    const usage = usageOf(c?.promptTokens || this.inputTokens, c?.completionTokens ?? 0);
    const stop = c === undefined ? { stop_reason: 'end_turn', stop_sequence: null } : stopInfoOf(c);
    return frames + event('message_delta', { delta: stop, usage }) + event('message_stop', {});
  }

  failure(message: string): string {
    return event('error', { error: { type: 'api_error', message } });
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const message = {
      id: this.meta.id,
      type: 'message',
      role: 'assistant',
      model: this.meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageOf(this.inputTokens, 0),
    };
    return event('message_start', { message }) + PING;
  }

  #parts(d: ChatDelta | string): string {
    if (typeof d === 'string') return this.#text(d);
    let frames = '';
    if (d.reasoning !== '')
      frames += this.#delta('thinking', { type: 'thinking_delta', thinking: d.reasoning });
    frames += this.#text(d.content);
    for (const call of d.toolCalls) frames += this.#toolCall(call);
    return frames;
  }

  #text(text: string): string {
    if (text === '') return '';
    if (this.#open?.kind !== 'text' && text.trim() === '') {
      this.#heldWhitespace += text;
      return '';
    }
    const shown = this.#heldWhitespace + text;
    this.#heldWhitespace = '';
    return this.#delta('text', { type: 'text_delta', text: shown });
  }

  #toolCall(call: WireToolCallDelta): string {
    let frames = '';
    if (call.function.name !== undefined) {
      frames += this.#openBlock('tool_use', {
        type: 'tool_use',
        id: toolUseId(call.id ?? ''),
        name: call.function.name,
        input: {},
      });
    }
    // A fragment belongs to the call whose block is open: parsers stream one call at a time.
    if (call.function.arguments !== '' && this.#open?.kind === 'tool_use')
      frames += this.#deltaFrame({
        type: 'input_json_delta',
        partial_json: call.function.arguments,
      });
    return frames;
  }

  /** A delta of `kind`, opening that kind of block first unless it is the open one. */
  #delta(kind: 'thinking' | 'text', delta: Record<string, unknown>): string {
    let frames = '';
    if (this.#open?.kind !== kind)
      frames += this.#openBlock(
        kind,
        kind === 'thinking'
          ? { type: 'thinking', thinking: '', signature: '' }
          : { type: 'text', text: '' },
      );
    return frames + this.#deltaFrame(delta);
  }

  #deltaFrame(delta: Record<string, unknown>): string {
    return event('content_block_delta', { index: this.#open?.index ?? 0, delta });
  }

  #openBlock(kind: BlockKind, block: Record<string, unknown>): string {
    const frames = this.#close();
    // Whitespace before anything but text is a separator, not text.
    if (kind !== 'text') this.#heldWhitespace = '';
    const index = this.#nextIndex++;
    this.#open = { kind, index };
    return frames + event('content_block_start', { index, content_block: block });
  }

  #close(): string {
    const open = this.#open;
    if (open === undefined) return '';
    this.#open = undefined;
    return event('content_block_stop', { index: open.index });
  }
}
