// Anthropic Messages responses (/v1/messages). The engines run a Messages request as a chat
// generation and convert its output, so this session is only another output format over the same
// engine, PD legs, faults and stats as chat: one text block, streamed as Anthropic's named events.
import type { GenerationPlan } from './request-parse.js';
import type { SessionContext } from './session.js';
import type { MessagesUsage, StopReason } from './messages-responses.js';
import {
  anthropicErrorBody,
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

export class MessagesSession extends InferenceSession {
  private readonly stop: StopReason;
  private text = '';
  /** Streaming: message_start, content_block_start and ping have been written. */
  private opened = false;

  constructor(ctx: SessionContext, plan: GenerationPlan) {
    super(ctx, plan);
    this.stop = stopReason(plan.finishReason);
  }

  onStep(): void {
    // A Messages request has one output: no `n`, no batch.
    const out = this.outputs[0];
    if (out === undefined) return;
    out.advance();
    if (!this.plan.stream) {
      this.text += out.lastText;
      return;
    }
    if (!this.opened) this.open();
    this.writeFrame(textDeltaFrame(out.lastText));
  }

  protected finishStream(): void {
    if (!this.opened) this.open();
    this.writeFrame(TEXT_BLOCK_STOP_FRAME);
    this.writeFrame(messageDeltaFrame(this.stop, this.outputTokens()));
  }

  protected override streamEnd(): string {
    return MESSAGE_STOP_FRAME;
  }

  protected body(extra: Record<string, unknown> | undefined): unknown {
    return messagesBody(this.ctx.meta, this.text, this.stop, this.usage(), extra);
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
   * lands has sent nothing but its head and ends with the error event alone.
   */
  private open(): void {
    this.opened = true;
    this.writeFrame(messageStartFrame(this.ctx.meta, { ...this.usage(), output_tokens: 1 }));
    this.writeFrame(TEXT_BLOCK_START_FRAME);
    this.writeFrame(PING_FRAME);
  }

  private outputTokens(): number {
    return this.outputs[0]?.count ?? 0;
  }

  private usage(): MessagesUsage {
    const cached = this.ctx.reportCached ? this.cachedTokens() : 0;
    return messagesUsage(this.plan.promptTokens, this.outputTokens(), cached);
  }
}
