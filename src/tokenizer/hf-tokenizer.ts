/**
 * ModelTokenizer over @huggingface/tokenizers: encode through the L0 cache, decode as the Rust
 * `tokenizers` crate SMG uses does, the chat template, and per-sample stop decoders.
 */
import type { ChatTemplate, TemplateSpecialTokens } from './chat-template.js';
import { ByteLevelDecoder, type ByteLevelVocab } from './byte-level-decode.js';
import type { HfTokenizer } from './hf-library.js';
import type { L0Cache } from './l0-cache.js';
import { RenderCache } from './render-cache.js';
import { SequenceStopDecoder } from './stop-decoder.js';
import {
  ChatTemplateError,
  type ChatTemplateInput,
  type ModelTokenizer,
  type StopDecoder,
  type StopDecoderConfig,
} from './types.js';

export interface HfModelTokenizerParts {
  modelId: string;
  source: string;
  tokenizer: HfTokenizer;
  /** tokenizer_config.json, or {} when the directory has none. */
  tokenizerConfig: Readonly<Record<string, unknown>>;
  eosTokenIds: readonly number[];
  template?: ChatTemplate | undefined;
  l0?: L0Cache | undefined;
  /** Present for byte-level BPE tokenizers: stop decoders then stream bytes, not decodes. */
  byteLevel?: ByteLevelVocab | undefined;
}

export class HfModelTokenizer implements ModelTokenizer {
  readonly modelId: string;
  readonly source: string;
  readonly vocabSize: number;
  readonly baseVocabSize: number;
  readonly eosTokenIds: readonly number[];
  readonly #tok: HfTokenizer;
  readonly #template: ChatTemplate | undefined;
  readonly #special: TemplateSpecialTokens;
  readonly #l0: L0Cache | undefined;
  /** Kept with the L0 cache: both are the exact-match cache of the prompt path. */
  readonly #renders: RenderCache | undefined;
  readonly #byteLevel: ByteLevelVocab | undefined;

  constructor(parts: HfModelTokenizerParts) {
    this.modelId = parts.modelId;
    this.source = parts.source;
    this.#tok = parts.tokenizer;
    this.#template = parts.template;
    this.#l0 = parts.l0;
    this.#renders = parts.l0 === undefined ? undefined : new RenderCache();
    this.#byteLevel = parts.byteLevel;
    this.eosTokenIds = Object.freeze([...parts.eosTokenIds]);
    // As the Rust crate's get_vocab_size(true): the vocabulary plus added tokens.
    this.vocabSize = parts.tokenizer.get_vocab(true).size;
    this.baseVocabSize = parts.tokenizer.get_vocab(false).size;
    this.#special = specialTokens(parts.tokenizerConfig);
  }

  get hasChatTemplate(): boolean {
    return this.#template !== undefined;
  }

  /** The L0 cache's counters, or undefined when it is off. */
  get l0Stats(): { hits: number; misses: number; entries: number } | undefined {
    return this.#l0?.stats;
  }

  /** Frozen ids: a cached encoding is shared by every request that sends the same text. */
  encode(text: string, addSpecialTokens: boolean): readonly number[] {
    const cached = this.#l0?.get(text, addSpecialTokens);
    if (cached !== undefined) return cached;
    const ids = this.#tok.encode(text, { add_special_tokens: addSpecialTokens }).ids;
    return this.#l0 ? this.#l0.set(text, addSpecialTokens, ids) : Object.freeze(ids);
  }

  /**
   * Ids the tokenizer does not know (an engine's padded vocabulary) are dropped, as the Rust
   * crate's decode does; the JS library would otherwise fail on them. Tokenization-space
   * cleanup is off: the Rust decode SMG calls never applies it, and it would make a window's
   * decode differ from the concatenation the incremental decoder relies on.
   */
  decode(ids: readonly number[], skipSpecialTokens: boolean): string {
    let known: number[] | undefined;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      if (this.#tok.id_to_token(id) === undefined) known ??= ids.slice(0, i);
      else known?.push(id);
    }
    // The library's decode takes a mutable array but does not change it.
    const use = (known ?? ids) as number[];
    if (use.length === 0) return '';
    return this.#tok.decode(use, {
      skip_special_tokens: skipSpecialTokens,
      clean_up_tokenization_spaces: false,
    });
  }

  /**
   * As the Rust crate's token_to_id, which SMG uses to fold single-token stop strings: an added
   * token by its content, else a vocabulary entry in the model's own spelling (byte-level BPE
   * spells " world" as "Ġworld", so " world" is undefined here). A string that merely encodes
   * to one token is deliberately not folded: the engine then stops only on that exact token and
   * misses the string inside a longer one, so folding more strings would lose more stops than
   * SMG does; the gateway's stop decoder enforces them instead.
   */
  tokenToId(token: string): number | undefined {
    return this.#tok.token_to_id(token);
  }

  idToToken(id: number): string | undefined {
    return this.#tok.id_to_token(id);
  }

  renderChat(input: ChatTemplateInput): string {
    if (this.#template === undefined) {
      throw new ChatTemplateError(`model ${this.modelId} has no chat template`);
    }
    const template = this.#template;
    if (this.#renders === undefined) return template.render(input, this.#special);
    // A template that raises is not cached: the error is thrown again on the next call.
    return this.#renders.render(input, () => template.render(input, this.#special));
  }

  stopDecoder(config: StopDecoderConfig): StopDecoder {
    const skip = config.skipSpecialTokens;
    if (this.#byteLevel !== undefined)
      return new SequenceStopDecoder(config, new ByteLevelDecoder(this.#byteLevel, skip));
    return new SequenceStopDecoder(config, (ids) => this.decode(ids, skip));
  }
}

/**
 * bos/eos/unk/pad from tokenizer_config.json, either a string or an AddedToken object with
 * `content`. A token that is null or absent stays out of the context (undefined, not none).
 */
function specialTokens(config: Readonly<Record<string, unknown>>): TemplateSpecialTokens {
  const out: TemplateSpecialTokens = {};
  for (const key of ['bos_token', 'eos_token', 'unk_token', 'pad_token'] as const) {
    const v = config[key];
    if (typeof v === 'string') out[key] = v;
    else if (
      typeof v === 'object' &&
      v !== null &&
      typeof (v as { content?: unknown }).content === 'string'
    ) {
      out[key] = (v as { content: string }).content;
    }
  }
  return out;
}
