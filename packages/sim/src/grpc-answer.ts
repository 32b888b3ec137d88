// Which token ids a gRPC Generate answers, decided when it arrives: each choice replays its
// answer text's ids followed by EOS, over and over, and the first stop decides its length. Knowing
// every length up front lets the engine schedule the request like any other (maxTokens = the
// longest choice) while the ids come out one per engine step.
import type { GrpcConstraint } from './grpc-constraint.js';
import type { ResolvedSimOptions } from './options.js';
import type { SimTokenizer } from './sim-tokenizer.js';
import { promptDirective } from './answer-directive.js';
import { constraintAnswer } from './grpc-constraint.js';
import { hashInts } from './prng.js';
import { OutputStream } from './text.js';

/** One choice's whole output, known up front. */
export interface ChoicePlan {
  /** answer ids + EOS; the output is this sequence repeated, cut at `length`. */
  readonly cycle: readonly number[];
  readonly length: number;
  readonly finish: 'stop' | 'length';
  /** The stop token that ended it (EOS or one of stop_token_ids), if any. */
  readonly matched: number | undefined;
}

/** The sampling fields the answer depends on, normalised across the three protos. */
export interface StopRules {
  /** Absent: until the context is full. */
  maxNewTokens: number;
  stopTokenIds: ReadonlySet<number>;
  ignoreEos: boolean;
}

/** Output token `i` of a choice. */
export function tokenAt(plan: ChoicePlan, i: number): number {
  return plan.cycle[i % plan.cycle.length] ?? 0;
}

/** Every output id of a choice (non-streaming completes). */
export function allTokens(plan: ChoicePlan): number[] {
  const out: number[] = [];
  for (let i = 0; i < plan.length; i++) out.push(tokenAt(plan, i));
  return out;
}

/**
 * The text every choice of a request answers, when something fixes it: the request's constraint
 * (the engine could emit nothing else), else the prompt's `<sim-answer>` directive (one request's
 * wish beats the worker-wide setting), else the worker's `answerText`. Undefined: each choice
 * answers its own canned words.
 */
export function fixedAnswer(
  opts: ResolvedSimOptions,
  tokenizer: SimTokenizer,
  request: { inputIds: readonly number[]; constraint: GrpcConstraint | undefined },
): string | undefined {
  return (
    constraintAnswer(request.constraint) ??
    promptDirective(tokenizer, request.inputIds) ??
    opts.answerText
  );
}

/** The text choice `choice` answers: the configured text, or seeded canned words. */
export function answerText(
  opts: ResolvedSimOptions,
  inputIds: readonly number[],
  choice: number,
): string {
  if (opts.answerText !== undefined) return opts.answerText;
  const words = new OutputStream(opts.seed, hashInts(inputIds), choice);
  let text = '';
  for (let i = 0; i < opts.outputTokens; i++) {
    words.advance();
    text += words.lastText;
  }
  return text + '.';
}

export function planChoice(
  answer: readonly number[],
  eos: number | undefined,
  rules: StopRules,
): ChoicePlan {
  const cycle = eos === undefined ? [...answer] : [...answer, eos];
  const limit = rules.maxNewTokens;
  let stopAt: number | undefined;
  for (let p = 0; p < cycle.length; p++) {
    const t = cycle[p] ?? 0;
    if (rules.stopTokenIds.has(t) || (!rules.ignoreEos && t === eos)) {
      stopAt = p;
      break;
    }
  }
  if (stopAt !== undefined && stopAt < limit) {
    return { cycle, length: stopAt + 1, finish: 'stop', matched: cycle[stopAt] };
  }
  // No EOS id known: the answer simply ends, as a model that stopped on a string would.
  const natural = eos === undefined && !rules.ignoreEos ? answer.length : undefined;
  if (natural !== undefined && natural <= limit) {
    return { cycle, length: natural, finish: 'stop', matched: undefined };
  }
  if (cycle.length === 0) return { cycle, length: 0, finish: 'stop', matched: undefined };
  return { cycle, length: limit, finish: 'length', matched: undefined };
}

/** Plans all `n` choices of a request; `fixed` is its `fixedAnswer`. */
export function planChoices(
  opts: ResolvedSimOptions,
  tokenizer: SimTokenizer,
  inputIds: readonly number[],
  n: number,
  rules: StopRules,
  fixed: string | undefined,
): ChoicePlan[] {
  const eos = tokenizer.eosTokenIds[0];
  const plans: ChoicePlan[] = [];
  let fixedIds: number[] | undefined;
  for (let c = 0; c < n; c++) {
    let ids: number[];
    if (fixed !== undefined) ids = fixedIds ??= tokenizer.encode(fixed);
    else ids = tokenizer.encode(answerText(opts, inputIds, c));
    plans.push(planChoice(ids, eos, rules));
  }
  return plans;
}

/**
 * A choice cut to its first token, as an SGLang/TokenSpeed prefill answers (it only runs the
 * prompt): on its cap, unless that token already stopped it.
 */
export function firstTokenOnly(plan: ChoicePlan): ChoicePlan {
  return plan.length > 1 ? { ...plan, length: 1, finish: 'length', matched: undefined } : plan;
}
