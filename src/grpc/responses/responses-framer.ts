/**
 * The OpenAI Responses stream of a gRPC generation, framed `event: <type>\ndata: <json>\n\n` with
 * a `sequence_number` counting from 0 on every event: `response.created` and
 * `response.in_progress` at the first output, then one output item at a time, in generation
 * order, each `response.output_item.added` … `response.output_item.done`:
 * - `reasoning` (while the reasoning parser says so): `response.content_part.added` with a
 *   `reasoning_text` part, `response.reasoning_text.delta`…, `.done`, `response.content_part.done`;
 * - `message`: `response.content_part.added` with an `output_text` part,
 *   `response.output_text.delta`…, `.done`, `response.content_part.done`;
 * - `function_call`, one per call: `response.function_call_arguments.delta` with the arguments'
 *   text as the tool parser streams it, then `.done` (SMG's gRPC stream drops calls);
 * then `response.completed`, or `response.incomplete` when the token cap cut the answer, whose
 * response holds the items the events built. The caller stores that response first (`finish`);
 * if it cannot, the stream ends failed instead, so no client is told a response is complete that
 * was not stored. The stream ends with `data: [DONE]` as SMG's does: the `openai` client's SSE
 * reader (`Stream.fromSSEResponse`, which @openai/agents streams through too) skips it.
 *
 * A failure (the engine's, or the store's) is `response.failed`, whose response carries
 * `error: {code, message}`, then an `error` event. That event has both the flat `code`/`message`/
 * `param` of the client's `ResponseErrorEvent` type and a nested `error` object: an event whose
 * data has `error` makes the `openai` client's SSE reader throw an `APIError` with that code, so
 * `responses.stream().finalResponse()` and an @openai/agents run reject instead of taking the
 * partial output as the answer (`response.failed` alone resolves as a response).
 *
 * Whitespace-only text is held until real text follows it, so the newlines a model writes
 * between its reasoning and a call open no message (the whole body drops them too). A delta
 * costs one string: the item's fragments made when it opened, the sequence number, and the
 * delta's JSON string.
 */
import type { EngineOutput } from '../../engine/types.js';
import { typeOf } from '../../errors/catalog.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatDelta, WireToolCallDelta } from '../chat-output.js';
import type { ChoiceState } from '../choice.js';
import { DONE } from '../formats.js';
import type { StreamFramer } from '../stream-framer.js';
import {
  endOf,
  functionCallItem,
  itemId,
  messageItem,
  outputText,
  reasoningItem,
  reasoningText,
  responseObject,
  usageOf,
  type ItemStatus,
  type ResponseHead,
} from './responses-shapes.js';

type ItemKind = 'reasoning' | 'message' | 'function_call';

/** The output item being streamed. */
interface OpenItem {
  kind: ItemKind;
  index: number;
  id: string;
  /** The reasoning or message text so far, or a call's arguments. */
  text: string;
  name: string;
  callId: string;
  /** The delta event's JSON before its sequence number, after it up to the delta, and after. */
  head: string;
  mid: string;
  tail: string;
}

function deltaHead(type: string): string {
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":`;
}

const HEADS: Record<ItemKind, string> = {
  reasoning: deltaHead('response.reasoning_text.delta'),
  message: deltaHead('response.output_text.delta'),
  function_call: deltaHead('response.function_call_arguments.delta'),
};

const PREFIXES = { reasoning: 'rs', message: 'msg', function_call: 'fc' } as const;

export class ResponsesFramer implements StreamFramer {
  #seq = 0;
  #started = false;
  /** The items closed so far, in output order. */
  readonly #items: Record<string, unknown>[] = [];
  #open: OpenItem | undefined;
  /** Whitespace-only text not yet shown (see the file comment). */
  #heldWhitespace = '';
  /** The sample last seen, for the usage of a failed response. */
  #choice: ChoiceState | undefined;

  constructor(
    private readonly head: ResponseHead,
    /** The prompt's token count, known before the engine answers. */
    private readonly inputTokens: number,
    /**
     * Called with the final response object before `response.completed`/`.incomplete` is framed
     * (the caller stores it); a rejection (a GatewayError such as `history_store_unavailable`)
     * ends the stream with `response.failed` carrying its code and message instead.
     */
    private readonly finish: (response: Record<string, unknown>) => Promise<void>,
  ) {}

  frames(out: EngineOutput, c: ChoiceState): string {
    this.#choice = c;
    return this.#start() + this.#parts(c.streamedDelta(out));
  }

  closing(choices: readonly ChoiceState[]): Promise<string> {
    let frames = this.#start();
    const c = choices[0];
    this.#choice = c;
    if (c !== undefined && !c.completed) {
      // The stream ended without the sample's complete: what its decoder and parsers hold.
      frames += this.#parts(c.heldDelta());
    }
    const end = endOf(c);
    // The cap cut the item being written; those closed before it were whole.
    frames += this.#close(end.status);
    const response = responseObject(this.head, {
      status: end.status,
      output: this.#items,
      usage: usageOf(c, this.inputTokens),
      error: null,
      incompleteDetails: end.incompleteDetails,
    });
    return this.#stored(frames, response, `response.${end.status}`);
  }

  failure(message: string): string {
    return this.#start() + this.#failed('server_error', message, 500);
  }

  /** The closing frames once the caller has stored `response`, or its failure if it could not. */
  async #stored(frames: string, response: Record<string, unknown>, type: string): Promise<string> {
    // Serialized before the caller sees it: the client is told what was handed to the store.
    const json = JSON.stringify(response);
    try {
      await this.finish(response);
    } catch (err) {
      if (err instanceof GatewayError)
        return frames + this.#failed(err.code, err.message, err.status);
      const why = err instanceof Error ? err.message : String(err);
      return frames + this.#failed('server_error', `Storing the response failed: ${why}`, 500);
    }
    const seq = this.#seq++;
    return `${frames}event: ${type}\ndata: {"type":"${type}","sequence_number":${seq},"response":${json}}\n\n${DONE}`;
  }

  /** `response.failed` with the items so far (an unfinished one as `incomplete`), then `error`. */
  #failed(code: string, message: string, status: number): string {
    const output = [...this.#items];
    const open = this.#open;
    if (open !== undefined) output.push(this.#item(open, 'incomplete'));
    const response = responseObject(this.head, {
      status: 'failed',
      output,
      usage: usageOf(this.#choice, this.inputTokens),
      error: { code, message },
      incompleteDetails: null,
    });
    const error = { type: typeOf(status), code, message, param: null };
    return (
      this.#event('response.failed', { response }) +
      this.#event('error', { code, message, param: null, error }) +
      DONE
    );
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const response = responseObject(this.head, {
      status: 'in_progress',
      output: [],
      usage: null,
      error: null,
      incompleteDetails: null,
    });
    return (
      this.#event('response.created', { response }) +
      this.#event('response.in_progress', { response })
    );
  }

  #event(type: string, data: Record<string, unknown>): string {
    const json = JSON.stringify({ type, sequence_number: this.#seq++, ...data });
    return `event: ${type}\ndata: ${json}\n\n`;
  }

  #parts(d: ChatDelta | string): string {
    if (typeof d === 'string') return this.#text(d);
    let frames = '';
    if (d.reasoning !== '') frames += this.#delta('reasoning', d.reasoning);
    frames += this.#text(d.content);
    if (d.toolCalls.length > 0) for (const call of d.toolCalls) frames += this.#toolCall(call);
    return frames;
  }

  #text(text: string): string {
    if (text === '') return '';
    if (this.#open?.kind !== 'message' && text.trim() === '') {
      this.#heldWhitespace += text;
      return '';
    }
    const shown = this.#heldWhitespace + text;
    this.#heldWhitespace = '';
    return this.#delta('message', shown);
  }

  #toolCall(call: WireToolCallDelta): string {
    let frames = '';
    if (call.function.name !== undefined)
      frames += this.#openItem('function_call', call.function.name, call.id ?? '');
    // A fragment belongs to the call whose item is open: parsers stream one call at a time.
    const args = call.function.arguments;
    if (args !== '' && this.#open?.kind === 'function_call')
      frames += this.#delta('function_call', args);
    return frames;
  }

  /** A delta of `kind`, opening that kind of item first unless it is the open one. */
  #delta(kind: ItemKind, text: string): string {
    const open = this.#open;
    if (open?.kind === kind) {
      open.text += text;
      return `${open.head}${this.#seq++}${open.mid}${JSON.stringify(text)}${open.tail}`;
    }
    return this.#openItem(kind, '', '') + this.#delta(kind, text);
  }

  #openItem(kind: ItemKind, name: string, callId: string): string {
    let frames = this.#close('completed');
    // Whitespace before anything but text is a separator, not text.
    if (kind !== 'message') this.#heldWhitespace = '';
    const index = this.#items.length;
    const id = itemId(PREFIXES[kind]);
    const where = `"item_id":${JSON.stringify(id)},"output_index":${index}`;
    const open: OpenItem = {
      kind,
      index,
      id,
      text: '',
      name,
      callId,
      head: HEADS[kind],
      mid: kind === 'function_call' ? `,${where},"delta":` : `,${where},"content_index":0,"delta":`,
      tail: kind === 'message' ? ',"logprobs":[]}\n\n' : '}\n\n',
    };
    this.#open = open;
    frames += this.#event('response.output_item.added', {
      output_index: index,
      item: this.#item(open, 'in_progress', true),
    });
    if (kind !== 'function_call')
      frames += this.#event('response.content_part.added', {
        item_id: id,
        output_index: index,
        content_index: 0,
        part: kind === 'message' ? outputText('') : reasoningText(''),
      });
    return frames;
  }

  /** Closes the open item: its `.done` events, and the item itself with `status`. */
  #close(status: ItemStatus): string {
    const open = this.#open;
    if (open === undefined) return '';
    this.#open = undefined;
    const at = { item_id: open.id, output_index: open.index };
    let frames: string;
    if (open.kind === 'message') {
      frames =
        this.#event('response.output_text.done', {
          ...at,
          content_index: 0,
          text: open.text,
          logprobs: [],
        }) +
        this.#event('response.content_part.done', {
          ...at,
          content_index: 0,
          part: outputText(open.text),
        });
    } else if (open.kind === 'reasoning') {
      frames =
        this.#event('response.reasoning_text.done', { ...at, content_index: 0, text: open.text }) +
        this.#event('response.content_part.done', {
          ...at,
          content_index: 0,
          part: reasoningText(open.text),
        });
    } else {
      frames = this.#event('response.function_call_arguments.done', {
        ...at,
        name: open.name,
        arguments: open.text,
      });
    }
    const item = this.#item(open, status);
    this.#items.push(item);
    return frames + this.#event('response.output_item.done', { output_index: open.index, item });
  }

  /** The item as it stands; `opening` for its `output_item.added` (no content part yet). */
  #item(open: OpenItem, status: ItemStatus, opening = false): Record<string, unknown> {
    const text = opening ? undefined : open.text;
    switch (open.kind) {
      case 'message':
        return messageItem(open.id, status, text);
      case 'reasoning':
        return reasoningItem(open.id, status, text);
      case 'function_call':
        return functionCallItem(open.id, status, open.callId, open.name, text ?? '');
    }
  }
}
