// OpenAI chat/completions responses (the surface vLLM, SGLang and TokenSpeed all serve).
import type { GenerationPlan } from './request-parse.js';
import type { OpenAiKind } from './responses.js';
import type { SessionContext } from './session.js';
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

  constructor(ctx: SessionContext, plan: GenerationPlan) {
    super(ctx, plan);
    this.kind = plan.kind === 'chat' ? 'chat' : 'completion';
    this.prefix = plan.stream ? chunkPrefix(this.kind, ctx.meta) : '';
    this.texts = plan.stream ? [] : this.outputs.map(() => '');
  }

  onStep(index: number): void {
    const { outputs, kind, prefix } = this;
    for (let c = 0; c < outputs.length; c++) {
      const out = outputs[c];
      if (out === undefined) continue;
      out.advance();
      if (!this.plan.stream) {
        this.texts[c] += out.lastText;
        continue;
      }
      // vLLM opens every chat choice with a role-only delta before its first token.
      if (index === 0 && kind === 'chat') this.writeEvent(chatRoleChunk(prefix, c));
      this.writeEvent(tokenChunk(kind, prefix, c, out.lastText));
      if (this.settled) return;
    }
  }

  protected finishStream(): void {
    for (let c = 0; c < this.outputs.length; c++) {
      this.writeEvent(finishChunk(this.kind, this.prefix, c, this.plan.finishReason));
    }
    if (this.plan.includeUsage) this.writeEvent(usageChunk(this.kind, this.ctx.meta, this.usage()));
  }

  protected body(): unknown {
    return openAiBody(this.kind, this.ctx.meta, this.texts, this.plan.finishReason, this.usage());
  }

  private usage(): ReturnType<typeof usage> {
    let completion = 0;
    for (const out of this.outputs) completion += out.count;
    return usage(this.plan.promptTokens, completion);
  }
}
