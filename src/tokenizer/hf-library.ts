/**
 * The part of @huggingface/tokenizers this module uses, typed here. The package's own .d.ts
 * files import each other without file extensions, which NodeNext resolution cannot follow, so
 * TypeScript sees its exports as unresolved (`any` under skipLibCheck) and lint rightly refuses
 * every call on them. The shapes below are the package's documented 0.2.0 API.
 */
import { Tokenizer as UntypedTokenizer } from '@huggingface/tokenizers';

export interface HfTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): { ids: number[] };
  decode(
    ids: number[],
    options?: { skip_special_tokens?: boolean; clean_up_tokenization_spaces?: boolean },
  ): string;
  token_to_id(token: string): number | undefined;
  id_to_token(id: number): string | undefined;
  get_vocab(withAddedTokens?: boolean): Map<string, number>;
  get_added_tokens_decoder(): Map<number, { content: string; special: boolean }>;
}

/** `new Tokenizer(tokenizerJson, tokenizerConfig)`; throws on a model type it does not know. */
export function createHfTokenizer(tokenizerJson: object, tokenizerConfig: object): HfTokenizer {
  const Ctor = UntypedTokenizer as unknown as new (json: object, config: object) => HfTokenizer;
  return new Ctor(tokenizerJson, tokenizerConfig);
}
