/**
 * The OpenAI stream of a gRPC answer (chat and completions chunks, SGLang's `/generate` frames):
 * a role chunk (chat) or the echo (completions) first per sample, then content, reasoning and
 * tool-call deltas as the parsers split the text, finish frames, usage if asked, `[DONE]`. A
 * failure is one error event then `[DONE]`, as SMG writes it.
 */
import type { EngineOutput } from '../engine/types.js';
import type { ChoiceState } from './choice.js';
import {
  chatPartsFrame,
  deltaFrame,
  DONE,
  finishFrame,
  generateFrame,
  roleFrame,
  sse,
  usageFrame,
  type ResponseMeta,
} from './formats.js';
import { baseKind, type GrpcPlan } from './plan.js';
import type { StreamFramer } from './stream-framer.js';

export class OpenAiFramer implements StreamFramer {
  readonly #kind: 'chat' | 'completion' | 'generate';

  constructor(
    private readonly plan: GrpcPlan,
    private readonly meta: ResponseMeta,
    /** The prompt text, for completions with `echo`. */
    private readonly echoText: string,
    private readonly startTime: number,
  ) {
    this.#kind = baseKind(plan);
  }

  frames(out: EngineOutput, c: ChoiceState): string {
    const { plan, meta } = this;
    const kind = this.#kind;
    const wantLogprobs = plan.logprobs !== undefined;
    let frames = '';
    if (!c.opened) {
      c.opened = true;
      if (kind === 'chat') frames += roleFrame(meta, c.index);
      else if (kind === 'completion' && plan.echo)
        frames += deltaFrame('completion', meta, c, this.echoText, c.logprobs.length, false);
    }
    const from = c.logprobs.length;
    const parsed = c.output;
    if (parsed !== undefined) {
      // Chat whose text is parsed: reasoning, content and tool calls as the parsers split them.
      if (out.kind === 'chunk')
        return frames + chatPartsFrame(meta, c, parsed.push(c.onChunk(out)), from, wantLogprobs);
      const last = parsed.pushLast(c.onComplete(out, true));
      return frames + chatPartsFrame(meta, c, last, from, wantLogprobs);
    }
    if (out.kind === 'chunk') {
      const text = c.onChunk(out);
      if (kind === 'generate') return frames + generateFrame(meta, c, undefined);
      if (text !== '' || c.logprobs.length > from)
        frames += deltaFrame(kind, meta, c, text, from, wantLogprobs);
      return frames;
    }
    const text = c.onComplete(out, true);
    if (kind === 'generate') {
      return (
        frames +
        generateFrame(meta, c, { latencySecs: (performance.now() - this.startTime) / 1000 })
      );
    }
    if (text !== '') frames += deltaFrame(kind, meta, c, text, from, wantLogprobs);
    return frames;
  }

  closing(choices: readonly ChoiceState[]): string {
    const kind = this.#kind;
    if (kind === 'generate') return DONE;
    let frames = '';
    for (const c of choices) frames += this.#flushUncompleted(c, kind);
    for (const c of choices) frames += finishFrame(kind, this.meta, c);
    if (this.plan.includeUsage) frames += usageFrame(kind, this.meta, choices);
    return frames + DONE;
  }

  failure(message: string): string {
    return sse({ error: { message, type: 'internal_error' } }) + DONE;
  }

  #flushUncompleted(c: ChoiceState, kind: 'chat' | 'completion'): string {
    if (c.completed) return '';
    const want = this.plan.logprobs !== undefined;
    const from = c.logprobs.length;
    const text = c.endWithoutComplete();
    const parsed = c.output;
    if (parsed === undefined)
      return text === '' ? '' : deltaFrame(kind, this.meta, c, text, from, want);
    return chatPartsFrame(this.meta, c, parsed.pushLast(text), from, want);
  }
}
