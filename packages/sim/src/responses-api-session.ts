// OpenAI Responses answers (/v1/responses). The engines run a Responses request as a chat
// generation and convert its output, so this session is only another output format over the same
// engine, PD legs, faults and stats as chat. Plain text is one `message` item; with tools, an
// answer holding tool-call markup converts as the chat tool parser reads it (tool-stream.ts): a
// `message` item for the text before the first call, if any, then one `function_call` item per
// call. Text after a call has begun is dropped, as vLLM's Responses stream drops it, and the whole
// answer is built from the same steps, so a streamed response adds up to the whole one.
import type { GenerationPlan } from './request-parse.js';
import type { OutputItem, ResponseStatus, ResponsesUsage } from './responses-api-wire.js';
import type { SessionContext } from './session.js';
import type { CallDelta, ToolAnswer } from './tool-stream.js';
import {
  responseBody,
  responseEcho,
  ResponsesEvents,
  responsesUsage,
} from './responses-api-wire.js';
import { InferenceSession } from './session.js';
import { toolAnswer, toolCallHex } from './tool-stream.js';

export class ResponsesSession extends InferenceSession {
  /** The request fields the response echoes. */
  private readonly echo: Record<string, unknown>;
  /** The tool parser's reading of the answer; undefined when it is plain text. */
  private readonly tools: ToolAnswer | undefined;
  private readonly wire = new ResponsesEvents();
  /** The output items so far, in order; while streaming, the last one may still be open. */
  private readonly items: OutputItem[] = [];
  private itemOpen = false;
  private callsBegun = false;
  /** Streaming: `response.created` and `response.in_progress` have been written. */
  private opened = false;

  constructor(ctx: SessionContext, plan: GenerationPlan, body: unknown) {
    super(ctx, plan);
    this.echo = responseEcho(body);
    this.tools = plan.tools?.parse === true ? this.parseTools() : undefined;
  }

  onStep(index: number): void {
    // A Responses request has one output: no `n`, no batch.
    const out = this.outputs[0];
    if (out === undefined) return;
    out.advance();
    if (this.plan.stream && !this.opened) this.open();
    const tools = this.tools;
    if (tools === undefined) {
      this.addText(out.lastText);
      return;
    }
    const step = tools.steps[index];
    if (step === undefined) return;
    if (step.content !== '' && !this.callsBegun) this.addText(step.content);
    for (const d of step.calls) this.addCallDelta(d);
  }

  protected finishStream(): void {
    if (!this.opened) this.open();
    this.closeItem();
  }

  /** `response.completed` ends the stream, as `message_stop` does on /v1/messages. */
  protected override streamEnd(): string {
    const response = responseBody(
      this.ctx.meta,
      this.echo,
      this.status(),
      this.items,
      this.usage(),
    );
    return this.wire.lifecycle('completed', response);
  }

  protected body(extra: Record<string, unknown> | undefined): unknown {
    return responseBody(this.ctx.meta, this.echo, this.status(), this.items, this.usage(), extra);
  }

  protected override streamError(_status: number, message: string, type: string): string {
    return this.wire.error(message, type);
  }

  /**
   * Opened at the first token, as the simulator's chat and Messages streams open, so the time to
   * a stream's first byte is the engine's TTFT on every route (vLLM sends these two events before
   * its first token). A PD decode that fails before its KV lands sends only its `error` event.
   */
  private open(): void {
    this.opened = true;
    const response = responseBody(this.ctx.meta, this.echo, 'in_progress', [], null);
    this.writeFrame(this.wire.lifecycle('created', response));
    this.writeFrame(this.wire.lifecycle('in_progress', response));
  }

  private addText(piece: string): void {
    let item = this.items.at(-1);
    if (!this.itemOpen || item?.type !== 'message') {
      this.closeItem();
      item = { type: 'message', id: `msg_${this.hex('msg', 0)}`, text: '' };
      this.openItem(item);
      if (this.plan.stream) this.writeFrame(this.wire.partAdded(this.lastIndex(), item.id));
    }
    item.text += piece;
    if (this.plan.stream) this.writeFrame(this.wire.textDelta(this.lastIndex(), item.id, piece));
  }

  /** Parsers stream one call at a time: argument text belongs to the call opened last. */
  private addCallDelta(d: CallDelta): void {
    if (d.header !== undefined) {
      this.callsBegun = true;
      this.closeItem();
      this.openItem({
        type: 'function_call',
        id: `fc_${this.hex('fc', d.index)}`,
        callId: d.header.id,
        name: d.header.name,
        arguments: '',
      });
    }
    const item = this.items.at(-1);
    if (d.arguments === '' || !this.itemOpen || item?.type !== 'function_call') return;
    item.arguments += d.arguments;
    if (this.plan.stream) {
      this.writeFrame(this.wire.argumentsDelta(this.lastIndex(), item.id, d.arguments));
    }
  }

  private openItem(item: OutputItem): void {
    this.items.push(item);
    this.itemOpen = true;
    if (this.plan.stream) this.writeFrame(this.wire.itemAdded(this.lastIndex(), item));
  }

  /** Streaming: the open item's closing events. */
  private closeItem(): void {
    const item = this.items.at(-1);
    if (!this.itemOpen || item === undefined) return;
    this.itemOpen = false;
    if (!this.plan.stream) return;
    const at = this.lastIndex();
    if (item.type === 'message') {
      this.writeFrame(this.wire.textDone(at, item.id, item.text));
      this.writeFrame(this.wire.partDone(at, item.id, item.text));
    } else {
      this.writeFrame(this.wire.argumentsDone(at, item.id, item.name, item.arguments));
    }
    this.writeFrame(this.wire.itemDone(at, item));
  }

  private lastIndex(): number {
    return this.items.length - 1;
  }

  /** Item and call ids are derived from the response id, so a stream and a replay agree. */
  private hex(kind: string, index: number): string {
    return toolCallHex(`${this.ctx.meta.id}/${kind}`, index);
  }

  /** The parse of the whole output (the tokens it will produce, cap included). */
  private parseTools(): ToolAnswer | undefined {
    const tokens = this.fixedTokens(0);
    if (tokens === undefined) return undefined;
    return toolAnswer(tokens, (k) => `call_${this.hex('call', k)}`);
  }

  /** vLLM: an answer cut by its cap is `incomplete`; one that ended by itself `completed`. */
  private status(): ResponseStatus {
    const finish = this.outputItems[0]?.finish ?? this.plan.finishReason;
    return finish === 'length' ? 'incomplete' : 'completed';
  }

  private usage(): ResponsesUsage {
    const cached = this.ctx.reportCached ? this.cachedTokens() : 0;
    return responsesUsage(this.plan.promptTokens, this.outputs[0]?.count ?? 0, cached);
  }
}
