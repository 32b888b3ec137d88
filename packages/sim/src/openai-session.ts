// OpenAI chat/completions responses (the surface vLLM, SGLang and TokenSpeed all serve).
import type { ChatLogprob } from './logprobs.js';
import type { GenerationPlan } from './request-parse.js';
import type { OpenAiKind } from './responses.js';
import type { SessionContext } from './session.js';
import { chatLogprob, CompletionLogprobBuilder } from './logprobs.js';
import {
  chatRoleChunk,
  chunkPrefix,
  finishChunk,
  openAiBody,
  tokenChunk,
  usage,
  usageChunk,
} from './responses.js';
import { InferenceSession } from './session.js';

export class OpenAiSession extends InferenceSession {
  private readonly kind: OpenAiKind;
  private readonly prefix: string;
  private readonly texts: string[];
  /** Per choice, when logprobs were requested (non-streaming accumulates them here). */
  private readonly chatLogprobs: ChatLogprob[][] | undefined;
  private readonly completionLogprobs: CompletionLogprobBuilder[] | undefined;

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
  }

  onStep(index: number): void {
    const { outputs, kind, prefix } = this;
    const top = this.plan.topLogprobs ?? 0;
    for (let c = 0; c < outputs.length; c++) {
      const out = outputs[c];
      if (out === undefined) continue;
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
      let logprobs = 'null';
      if (chat !== undefined) logprobs = JSON.stringify({ content: [chat] });
      else if (completion !== undefined) logprobs = JSON.stringify(completion);
      this.writeEvent(tokenChunk(kind, prefix, c, out.lastText, logprobs));
      if (this.settled) return;
    }
  }

  protected finishStream(): void {
    for (let c = 0; c < this.outputs.length; c++) {
      this.writeEvent(finishChunk(this.kind, this.prefix, c, this.plan.finishReason));
    }
    if (this.plan.includeUsage) this.writeEvent(usageChunk(this.kind, this.ctx.meta, this.usage()));
  }

  protected body(extra: Record<string, unknown> | undefined): unknown {
    const logprobs =
      this.chatLogprobs?.map((content) => ({ content })) ??
      this.completionLogprobs?.map((b) => b.value);
    return openAiBody(
      this.kind,
      this.ctx.meta,
      this.texts,
      this.plan.finishReason,
      this.usage(),
      logprobs,
      extra,
    );
  }

  private usage(): ReturnType<typeof usage> {
    let completion = 0;
    for (const out of this.outputs) completion += out.count;
    const cached = this.ctx.reportCached ? this.cachedTokens() : undefined;
    return usage(this.plan.promptTokens, completion, cached);
  }
}
