// Deterministic stand-in for a tokenizer and a sampler. The simulator has no model, so it only
// needs token *counts* that behave like a tokenizer's (longer prompt → more tokens) and output text
// that is stable under a seed, so that tests can compare responses across workers and runs.
import { Mulberry32, hashString, mix32 } from './prng.js';

/**
 * Tokenization rule: a token is a maximal run of letters, digits or '_', or any other single
 * non-space character. "Hello, world!" → ["Hello", ",", "world", "!"] = 4 tokens.
 */
const TOKEN_RE = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

/** Llama-style special ids: the simulator reports EOS as the `matched` stop token. */
export const EOS_TOKEN_ID = 2;
const VOCAB_SIZE = 32_000;
const FIRST_ORDINARY_ID = 3;
const OUTPUT_ID_BASE = 1_000;

/** Output vocabulary; a token is one word, preceded by a space except at the start. */
const WORDS: readonly string[] = [
  'the',
  'a',
  'train',
  'switch',
  'yard',
  'signal',
  'track',
  'engine',
  'car',
  'load',
  'route',
  'station',
  'freight',
  'line',
  'gate',
  'crew',
  'shift',
  'bell',
  'lamp',
  'rail',
  'bridge',
  'tunnel',
  'north',
  'south',
  'east',
  'west',
  'early',
  'late',
  'slow',
  'fast',
  'quiet',
  'busy',
  'red',
  'green',
  'amber',
  'steel',
  'coal',
  'grain',
  'water',
  'steam',
  'runs',
  'waits',
  'turns',
  'stops',
  'moves',
  'holds',
  'passes',
  'joins',
  'and',
  'or',
  'to',
  'from',
  'with',
  'under',
  'over',
  'near',
  'past',
  'before',
  'after',
  'again',
  'today',
  'tonight',
  'here',
  'there',
];

/**
 * The `rank`-th most likely token at a step whose sampled token is `id` (rank 0 = `id` itself):
 * the words that follow it in the vocabulary, each 0.75 less likely. Used for top_logprobs.
 */
export function rankedToken(
  id: number,
  logprob: number,
  rank: number,
  leadingSpace: boolean,
): { text: string; logprob: number } {
  const w = (id - OUTPUT_ID_BASE + rank) % WORDS.length;
  const word = WORDS[w] ?? 'the';
  return { text: leadingSpace ? ' ' + word : word, logprob: logprob - 0.75 * rank };
}

/** Counts prompt tokens with the rule above. */
export function countTokens(text: string): number {
  let n = 0;
  TOKEN_RE.lastIndex = 0;
  while (TOKEN_RE.exec(text) !== null) n++;
  return n;
}

/** Token ids for a prompt: each token's hash folded into the ordinary-id range. */
export function tokenIds(text: string): number[] {
  const ids: number[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    ids.push(FIRST_ORDINARY_ID + (hashString(m[0]) % (VOCAB_SIZE - FIRST_ORDINARY_ID)));
  }
  return ids;
}

/** One token of a fixed answer: its text (leading whitespace included) and its id. */
export interface AnswerToken {
  text: string;
  id: number;
}

/**
 * Whitespace rides on the token after it, as a BPE vocabulary's leading spaces do; whitespace at
 * the very end is a token of its own. So the tokens of a text concatenate back to it exactly.
 */
const ANSWER_RE = /\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_])|\s+$/gu;

/**
 * A fixed answer (a `<sim-answer>` directive, a constrained JSON text) cut into the tokens it is
 * streamed as, with the tokenization rule above. Ids fold each token's hash into the vocabulary,
 * as prompt ids do. An empty text is one empty token: the model's EOS, so the answer still takes a
 * step and a stream still has its first chunk.
 */
export function answerTokens(text: string): AnswerToken[] {
  const out: AnswerToken[] = [];
  for (const m of text.matchAll(ANSWER_RE)) {
    out.push({
      text: m[0],
      id: FIRST_ORDINARY_ID + (hashString(m[0]) % (VOCAB_SIZE - FIRST_ORDINARY_ID)),
    });
  }
  return out.length > 0 ? out : [{ text: '', id: EOS_TOKEN_ID }];
}

/** Deterministic log-probability of prompt token `id` at `position`, in (-4, 0]. */
export function promptLogprob(id: number, position: number): number {
  return -(mix32(Math.imul(id, 31) + position) % 4000) / 1000;
}

/**
 * One choice's output token stream. `advance()` draws the next token and exposes it through the
 * `last*` fields, so the per-token hot path allocates nothing but the word's string slice. With a
 * fixed answer the tokens are the answer's (over again if `ignore_eos` runs past its end).
 */
export class OutputStream {
  private readonly rng: Mulberry32;
  /** Tokens drawn so far. */
  count = 0;
  lastId = 0;
  lastText = '';
  lastLogprob = 0;

  /** `key` identifies the request content, `choice` the index among n (or batch) choices. */
  constructor(
    seed: number,
    key: number,
    choice: number,
    private readonly answer?: readonly AnswerToken[],
  ) {
    this.rng = new Mulberry32(mix32(mix32(seed) ^ key ^ Math.imul(choice + 1, 0x9e3779b9)));
  }

  advance(): void {
    const w = this.rng.nextInt(WORDS.length);
    // Drawn even when logprobs are not requested, so the text never depends on return_logprob.
    this.lastLogprob = -Math.round(this.rng.next() * 3000) / 1000;
    const fixed = this.answer?.[this.count % this.answer.length];
    if (fixed !== undefined) {
      this.lastId = fixed.id;
      this.lastText = fixed.text;
      this.count++;
      return;
    }
    this.lastId = OUTPUT_ID_BASE + w;
    const word = WORDS[w] ?? 'the';
    this.lastText = this.count === 0 ? word : ' ' + word;
    this.count++;
  }
}
