// OpenAI logprobs as vLLM and SGLang's OpenAI servers return them: chat carries
// `{content: [{token, logprob, bytes, top_logprobs}]}`, completions the legacy
// `{tokens, token_logprobs, top_logprobs, text_offset}` arrays. Values come from the output
// stream's seeded draw, so they are as deterministic as the text.
import type { OutputStream } from './text.js';
import { rankedToken } from './text.js';

export interface ChatLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[] | null;
  text_offset: number[];
}

function bytesOf(text: string): number[] {
  return [...Buffer.from(text, 'utf8')];
}

/** The chat entry for the token `out` just produced. */
export function chatLogprob(out: OutputStream, top: number): ChatLogprob {
  const leading = out.count > 1;
  const alternatives = [];
  for (let r = 0; r < top; r++) {
    const t = rankedToken(out.lastId, out.lastLogprob, r, leading);
    alternatives.push({ token: t.text, logprob: t.logprob, bytes: bytesOf(t.text) });
  }
  return {
    token: out.lastText,
    logprob: out.lastLogprob,
    bytes: bytesOf(out.lastText),
    top_logprobs: alternatives,
  };
}

/** Accumulates completion logprobs over the tokens of one choice. */
export class CompletionLogprobBuilder {
  readonly value: CompletionLogprobs;
  private offset = 0;

  constructor(private readonly top: number) {
    this.value = {
      tokens: [],
      token_logprobs: [],
      top_logprobs: top > 0 ? [] : null,
      text_offset: [],
    };
  }

  /** Adds the token `out` just produced; returns the one-token logprobs of a stream chunk. */
  add(out: OutputStream): CompletionLogprobs {
    const v = this.value;
    const leading = out.count > 1;
    let top: Record<string, number> | undefined;
    if (this.top > 0) {
      top = {};
      for (let r = 0; r < this.top; r++) {
        const t = rankedToken(out.lastId, out.lastLogprob, r, leading);
        top[t.text] = t.logprob;
      }
    }
    const one: CompletionLogprobs = {
      tokens: [out.lastText],
      token_logprobs: [out.lastLogprob],
      top_logprobs: top === undefined ? null : [top],
      text_offset: [this.offset],
    };
    v.tokens.push(out.lastText);
    v.token_logprobs.push(out.lastLogprob);
    if (top !== undefined) v.top_logprobs?.push(top);
    v.text_offset.push(this.offset);
    this.offset += out.lastText.length;
    return one;
  }
}
