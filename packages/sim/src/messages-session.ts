// Anthropic Messages responses (/v1/messages). The engines run a Messages request as a chat
// generation and convert its output, so this session is only another output format over the same
// engine, PD legs, faults and stats as chat: one text block, streamed as Anthropic's named events.
// With tools, an answer holding tool-call markup converts as the chat tool parser reads it
// (tool-stream.ts): a text block for the text outside the markup, if any, then one `tool_use`
// block per call, and `stop_reason: "tool_use"`; streamed, each block opens when its first piece
// arrives and the calls' inputs come as `input_json_delta`s.
import type { GenerationPlan } from './request-parse.js';
import type { SessionContext } from './session.js';
import type { ContentBlock, MessagesUsage, StopReason } from './messages-responses.js';
import type { StepOutput, ToolAnswer } from './tool-stream.js';
import {
  anthropicErrorBody,
  blockDeltaFrame,
  blockStartFrame,
  blockStopFrame,
  MESSAGE_STOP_FRAME,
  messageDeltaFrame,
  messagesBody,
  messageStartFrame,
  messagesStreamError,
  messagesUsage,
  PING_FRAME,
  stopReason,
  TEXT_BLOCK_START_FRAME,
  TEXT_BLOCK_STOP_FRAME,
  textDeltaFrame,
} from './messages-responses.js';
import { InferenceSession } from './session.js';
import { toolAnswer, toolCallHex } from './tool-stream.js';

export class MessagesSession extends InferenceSession {
  private readonly stop: StopReason;
  /** The tool parser's reading of the answer; undefined when it is plain text. */
  private readonly tools: ToolAnswer | undefined;
  private text = '';
  /** Streaming: message_start (and for plain text its block and ping) have been written. */
  private opened = false;
  /** Streaming a tool-parsed answer: the open block, and the index the next one takes. */
  private block: { index: number; kind: 'text' | 'tool_use' } | undefined;
  private nextBlock = 0;

  constructor(ctx: SessionContext, plan: GenerationPlan) {
    super(ctx, plan);
    this.tools = plan.tools?.parse === true ? this.parseTools() : undefined;
    this.stop = stopReason(plan.finishReason, this.tools !== undefined);
  }

  onStep(index: number): void {
    // A Messages request has one output: no `n`, no batch.
    const out = this.outputs[0];
    if (out === undefined) return;
    out.advance();
    if (!this.plan.stream) {
      this.text += out.lastText;
      return;
    }
    if (!this.opened) this.open();
    const step = this.tools?.steps[index];
    if (step !== undefined) this.writeToolStep(step);
    else this.writeFrame(textDeltaFrame(out.lastText));
  }

  protected finishStream(): void {
    if (!this.opened) this.open();
    if (this.tools === undefined) this.writeFrame(TEXT_BLOCK_STOP_FRAME);
    else this.closeBlock();
    this.writeFrame(messageDeltaFrame(this.stop, this.outputTokens()));
  }

  protected override streamEnd(): string {
    return MESSAGE_STOP_FRAME;
  }

  protected body(extra: Record<string, unknown> | undefined): unknown {
    const tools = this.tools;
    let content: ContentBlock[] = [{ type: 'text', text: this.text }];
    if (tools !== undefined) {
      content = tools.calls.map((c) => ({
        type: 'tool_use',
        id: c.id,
        name: c.name,
        input: c.input,
      }));
      if (tools.content !== null) content.unshift({ type: 'text', text: tools.content });
    }
    return messagesBody(this.ctx.meta, content, this.stop, this.usage(), extra);
  }

  protected override errorJson(status: number, message: string, type: string): unknown {
    return anthropicErrorBody(status, message, type);
  }

  protected override streamError(status: number, message: string, type: string): string {
    return messagesStreamError(status, message, type);
  }

  /**
   * Opened at the first token, as the engines do (they convert the chat stream's first chunk), so
   * the prompt is computed and its cached tokens are known; a PD decode that fails before its KV
   * lands has sent nothing but its head and ends with the error event alone. A tool-parsed answer
   * opens its blocks as they come, so none of them is empty.
   */
  private open(): void {
    this.opened = true;
    this.writeFrame(messageStartFrame(this.ctx.meta, { ...this.usage(), output_tokens: 1 }));
    if (this.tools === undefined) this.writeFrame(TEXT_BLOCK_START_FRAME);
    this.writeFrame(PING_FRAME);
  }

  private writeToolStep(step: StepOutput): void {
    if (step.content !== '') {
      if (this.block?.kind !== 'text') this.openBlock('text', { type: 'text', text: '' });
      this.writeFrame(blockDeltaFrame(this.block?.index ?? 0, 'text', step.content));
    }
    for (const d of step.calls) {
      if (d.header !== undefined) {
        const { id, name } = d.header;
        this.openBlock('tool_use', { type: 'tool_use', id, name, input: {} });
      }
      // Parsers stream one call at a time: a piece belongs to the call whose block is open.
      if (d.arguments !== '' && this.block?.kind === 'tool_use') {
        this.writeFrame(blockDeltaFrame(this.block.index, 'input_json', d.arguments));
      }
    }
  }

  private openBlock(kind: 'text' | 'tool_use', block: ContentBlock): void {
    this.closeBlock();
    this.block = { index: this.nextBlock++, kind };
    this.writeFrame(blockStartFrame(this.block.index, block));
  }

  private closeBlock(): void {
    if (this.block === undefined) return;
    this.writeFrame(blockStopFrame(this.block.index));
    this.block = undefined;
  }

  /** The parse of the whole output (the tokens it will produce, cap included). */
  private parseTools(): ToolAnswer | undefined {
    const tokens = this.fixedTokens(0);
    if (tokens === undefined) return undefined;
    return toolAnswer(tokens, (k) => `toolu_${toolCallHex(`${this.ctx.meta.id}/0`, k)}`);
  }

  private outputTokens(): number {
    return this.outputs[0]?.count ?? 0;
  }

  private usage(): MessagesUsage {
    const cached = this.ctx.reportCached ? this.cachedTokens() : 0;
    return messagesUsage(this.plan.promptTokens, this.outputTokens(), cached);
  }
}
