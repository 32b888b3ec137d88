// SGLang's native /generate responses (SGLang and TokenSpeed workers).
import type { GenerationPlan } from './request-parse.js';
import type { GenerateFinish, GenerateState, LogprobEntry } from './responses.js';
import type { SessionContext } from './session.js';
import { generateResult } from './responses.js';
import { InferenceSession } from './session.js';
import { EOS_TOKEN_ID, promptLogprob } from './text.js';

export class GenerateSession extends InferenceSession {
  private readonly states: GenerateState[] = [];

  constructor(ctx: SessionContext, plan: GenerationPlan) {
    super(ctx, plan);
    const baseId = plan.rid ?? ctx.meta.id;
    for (const item of plan.items) {
      // Prompt logprobs depend only on the prompt, so the item's n outputs share one array. A PD
      // decode never computes the prompt: it reports none, and the router prepends the prefill's.
      let inputLogprobs: LogprobEntry[] | undefined;
      if (plan.returnLogprob) {
        inputLogprobs = ctx.pd?.remoteKv === true ? [] : promptLogprobs(item.ids ?? []);
      }
      for (let j = 0; j < plan.n; j++) {
        const o = this.states.length;
        this.states.push({
          rid: plan.batch ? `${baseId}-${o}` : baseId,
          index: plan.batch ? o : undefined,
          text: '',
          outputIds: [],
          promptTokens: item.tokens,
          cachedTokens: 0,
          finish: null,
          e2eLatency: 0,
          inputLogprobs,
          outputLogprobs: plan.returnLogprob ? [] : undefined,
        });
      }
    }
  }

  onStep(index: number): void {
    for (let c = 0; c < this.outputs.length; c++) {
      const out = this.outputs[c];
      const s = this.states[c];
      const length = this.outputItems[c]?.length ?? 0;
      // A batch item whose answer is shorter than the longest has ended.
      if (out === undefined || s === undefined || index >= length) continue;
      out.advance();
      s.text += out.lastText;
      s.outputIds.push(out.lastId);
      s.outputLogprobs?.push([out.lastLogprob, out.lastId, null]);
      if (index === length - 1) s.finish = this.finish(c);
      if (this.plan.stream) {
        s.cachedTokens = this.cachedTokens();
        s.e2eLatency = this.elapsedSeconds();
        this.writeEvent(JSON.stringify(generateResult(s)));
        if (this.settled) return;
      }
    }
  }

  protected finishStream(): void {
    // With max_new_tokens 0 no step ran, so the only event is the finished, empty result.
    if (this.plan.maxTokens !== 0) return;
    for (const [c, s] of this.states.entries()) {
      s.finish = this.finish(c);
      s.cachedTokens = this.cachedTokens();
      s.e2eLatency = this.elapsedSeconds();
      this.writeEvent(JSON.stringify(generateResult(s)));
    }
  }

  protected body(): unknown {
    const e2e = this.elapsedSeconds();
    const cached = this.cachedTokens();
    for (const [c, s] of this.states.entries()) {
      s.finish = this.finish(c);
      s.cachedTokens = cached;
      s.e2eLatency = e2e;
    }
    const results = this.states.map(generateResult);
    return this.plan.batch ? results : results[0];
  }

  private finish(c: number): GenerateFinish {
    const item = this.outputItems[c];
    return item?.finish === 'length'
      ? { type: 'length', length: item.length }
      : { type: 'stop', matched: EOS_TOKEN_ID };
  }
}

function promptLogprobs(ids: readonly number[]): LogprobEntry[] {
  return ids.map((id, position) => [promptLogprob(id, position), id, null]);
}
