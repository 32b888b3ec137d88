/**
 * What the gRPC pipeline needs from a model's tokenizer: encode (cached), decode, the chat
 * template, the hidden EOS stops, and per-sample decoders that turn token ids into text without
 * ever emitting half a character and that enforce stop strings across token boundaries.
 */

export interface ChatTemplateInput {
  messages: readonly Record<string, unknown>[];
  tools?: readonly unknown[] | undefined;
  documents?: readonly unknown[] | undefined;
  addGenerationPrompt: boolean;
  /** Pops the last assistant message and appends its content after rendering. */
  continueFinalMessage?: boolean | undefined;
  /** Merged over the template context. */
  chatTemplateKwargs?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Thinking on or off, set under the template's own toggle (`enable_thinking` or `thinking`);
   * undefined leaves the template's default. `chatTemplateKwargs` naming the toggle wins.
   */
  thinking?: boolean | undefined;
}

/** A template that raised or failed to render; its message is safe to show the client (400). */
export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}

/** One step of a stop decoder. */
export type StopStep =
  | { kind: 'text'; text: string }
  | { kind: 'held' }
  | { kind: 'stopped'; text: string; matched: string | number };

export interface StopDecoderConfig {
  /** Stop strings trimmed from the output (`no_stop_trim` false). */
  hiddenStops: readonly string[];
  /** Stop strings kept in the output (`no_stop_trim` true). */
  visibleStops: readonly string[];
  hiddenStopTokenIds: readonly number[];
  visibleStopTokenIds: readonly number[];
  skipSpecialTokens: boolean;
}

/**
 * Token ids in, text out, one sample. `push` returns what may be shown now; `flush` releases
 * text held for a possible stop match or an incomplete character at the end of the sample.
 */
export interface StopDecoder {
  push(tokenId: number): StopStep;
  flush(): string;
  readonly stopped: boolean;
}

export interface ModelTokenizer {
  /** The model id this tokenizer was registered for. */
  readonly modelId: string;
  /** Where it was loaded from (a directory, or `worker:<url>` for a GetTokenizer bundle). */
  readonly source: string;
  readonly vocabSize: number;
  /**
   * The model's vocabulary without added tokens: what SMG reports as `vocab_size` on its
   * tokenizer admin routes (the Rust crate's `get_vocab_size(false)`).
   */
  readonly baseVocabSize: number;
  /** From config.json / generation_config.json only; hidden stops unless ignore_eos. */
  readonly eosTokenIds: readonly number[];
  readonly hasChatTemplate: boolean;
  encode(text: string, addSpecialTokens: boolean): readonly number[];
  decode(ids: readonly number[], skipSpecialTokens: boolean): string;
  /** The id of a string that is exactly one token (added or vocabulary), else undefined. */
  tokenToId(token: string): number | undefined;
  idToToken(id: number): string | undefined;
  /** Throws ChatTemplateError when the template raises or there is none. */
  renderChat(input: ChatTemplateInput): string;
  stopDecoder(config: StopDecoderConfig): StopDecoder;
}
