// OpenAI chat/completions responses (the surface vLLM, SGLang and TokenSpeed all serve). A chat
// request with tools whose answer holds tool-call markup is answered as the engine's tool parser
// would answer it (tool-stream.ts): `message.tool_calls` and `finish_reason: "tool_calls"`,
// streamed as `delta.tool_calls`.
import type { ChatLogprob } from './logprobs.js';
import type { GenerationPlan } from './request-parse.js';
import type { ChoiceOutput, OpenAiFinish, OpenAiKind } from './responses.js';
import type { SessionContext } from './session.js';
import type { StepOutput, ToolAnswer } from './tool-stream.js';
import { chatLogprob, CompletionLogprobBuilder } from './logprobs.js';
import {
  chatRoleChunk,
  chunkPrefix,
  finishChunk,
  openAiBody,
  tokenChunk,
  toolCallChunk,
  usage,
  usageChunk,
} from './responses.js';
import { InferenceSession } from './session.js';
import { toolAnswer, toolCallHex } from './tool-stream.js';

export class OpenAiSession extends InferenceSession {
  private readonly kind: OpenAiKind;
  private readonly prefix: string;
  private readonly texts: string[];
  /** Per choice, when logprobs were requested (non-streaming accumulates them here). */
  private readonly chatLogprobs: ChatLogprob[][] | undefined;
  private readonly completionLogprobs: CompletionLogprobBuilder[] | undefined;
  /** Per choice: the tool parser's reading of its answer; undefined where it is plain text. */
  private readonly tools: (ToolAnswer | undefined)[];

  constructor(ctx: SessionContext, plan: GenerationPlan) {
    super(ctx, plan);
    this.kind = plan.kind === 'chat' ? 'chat' : 'completion';
    this.prefix = plan.stream ? chunkPrefix(this.kind, ctx.meta) : '';
    this.texts = plan.stream ? [] : this.outputs.map(() => '');
    const top = plan.topLogprobs;
    if (top !== undefined && this.kind === 'chat') this.chatLogprobs = this.outputs.map(() => []);
    if (top !== undefined && this.kind === 'completion') {
      this.completionLogprobs = this.outputs.map(() => new CompletionLogprobBuilder(top));
    }
    const parse = this.kind === 'chat' && plan.tools?.parse === true;
    this.tools = this.outputItems.map((_, c) => (parse ? this.parseTools(c) : undefined));
  }

  onStep(index: number): void {
    const { outputs, kind, prefix } = this;
    const top = this.plan.topLogprobs ?? 0;
    for (let c = 0; c < outputs.length; c++) {
      const out = outputs[c];
      // A batch item whose answer is shorter than the longest has ended.
      if (out === undefined || index >= (this.outputItems[c]?.length ?? 0)) continue;
      out.advance();
      const chat = this.chatLogprobs === undefined ? undefined : chatLogprob(out, top);
      const completion = this.completionLogprobs?.[c]?.add(out);
      if (!this.plan.stream) {
        this.texts[c] += out.lastText;
        if (chat !== undefined) this.chatLogprobs?.[c]?.push(chat);
        continue;
      }
      // vLLM opens every chat choice with a role-only delta before its first token.
      if (index === 0 && kind === 'chat') this.writeEvent(chatRoleChunk(prefix, c));
      const step = this.tools[c]?.steps[index];
      if (step !== undefined) {
        this.writeToolStep(c, step);
      } else {
        let logprobs = 'null';
        if (chat !== undefined) logprobs = JSON.stringify({ content: [chat] });
        else if (completion !== undefined) logprobs = JSON.stringify(completion);
        this.writeEvent(tokenChunk(kind, prefix, c, out.lastText, logprobs));
      }
      if (this.settled) return;
    }
  }

  protected finishStream(): void {
    for (let c = 0; c < this.outputs.length; c++) {
      this.writeEvent(finishChunk(this.kind, this.prefix, c, this.finishOf(c)));
    }
    if (this.plan.includeUsage) this.writeEvent(usageChunk(this.kind, this.ctx.meta, this.usage()));
  }

  protected body(extra: Record<string, unknown> | undefined): unknown {
    const logprobs =
      this.chatLogprobs?.map((content) => ({ content })) ??
      this.completionLogprobs?.map((b) => b.value);
    const choices = this.texts.map((text, c): ChoiceOutput => {
      const tool = this.tools[c];
      return {
        text: tool === undefined ? text : tool.content,
        finish: this.finishOf(c),
        toolCalls: tool?.calls,
        logprobs: logprobs?.[c],
      };
    });
    return openAiBody(this.kind, this.ctx.meta, choices, this.usage(), extra);
  }

  /**
   * What a token of a tool-parsed answer shows, as SGLang streams it: the text outside the
   * markup as a content delta, then one chunk per tool-call delta. A token that only advances
   * the markup shows nothing; the engines send no chunk for it either.
   */
  private writeToolStep(c: number, step: StepOutput): void {
    if (step.content !== '') this.writeEvent(tokenChunk('chat', this.prefix, c, step.content));
    for (const delta of step.calls) {
      if (this.settled) return;
      this.writeEvent(toolCallChunk(this.prefix, c, delta));
    }
  }

  /** The parse of choice c's whole output (the tokens it will produce, cap included). */
  private parseTools(c: number): ToolAnswer | undefined {
    const tokens = this.fixedTokens(c);
    if (tokens === undefined) return undefined;
    return toolAnswer(tokens, (k) => `call_${toolCallHex(`${this.ctx.meta.id}/${c}`, k)}`);
  }

  /** A choice that made calls and ended by itself finishes `tool_calls` (SGLang's rule). */
  private finishOf(c: number): OpenAiFinish {
    const finish = this.outputItems[c]?.finish ?? this.plan.finishReason;
    return finish === 'stop' && this.tools[c] !== undefined ? 'tool_calls' : finish;
  }

  private usage(): ReturnType<typeof usage> {
    let completion = 0;
    for (const out of this.outputs) completion += out.count;
    const cached = this.ctx.reportCached ? this.cachedTokens() : undefined;
    return usage(this.plan.promptTokens, completion, cached);
  }
}
