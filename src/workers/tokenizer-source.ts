/**
 * What the worker layer needs from the tokenizer module (`src/tokenizer/`, merged separately):
 * a registry that loads each model's tokenizer once, and the two loaders (a local directory, a
 * `GetTokenizer` bundle). The composition root fills these with `TokenizerRegistry`,
 * `loadTokenizerDir` and `loadTokenizerBundle`; tests fill them with fakes.
 */
import type { TokenizerBundle } from '../engine/types.js';
import type { TokenizerLoadOptions } from '../tokenizer/load-dir.js';
import type { ModelTokenizer } from '../tokenizer/types.js';

/** The subset of `TokenizerRegistry` the registration job and readiness use. */
export interface TokenizerRegistryLike {
  get(modelId: string): ModelTokenizer | undefined;
  has(modelId: string): boolean;
  /** Names with a ready tokenizer, in registration order (the tokenizer admin routes). */
  models(): string[];
  /** Registers a loaded tokenizer under its `modelId`, replacing one of that name. */
  set(tok: ModelTokenizer): void;
  /** Drops a ready tokenizer (`DELETE /v1/tokenizers/{id}`); returns it. */
  remove(modelId: string): ModelTokenizer | undefined;
  /**
   * Loads `modelId` once: a second call for a model being loaded or loaded joins that entry.
   * Retries the loader itself (3 attempts, 2 s apart) and rejects with its last error.
   */
  register(
    modelId: string,
    load: (signal: AbortSignal) => Promise<ModelTokenizer>,
  ): Promise<ModelTokenizer>;
  /** Called with the model id whenever an entry is added, replaced or removed. */
  onChange(listener: (modelId: string) => void): () => void;
  /** Stops loads still retrying (shutdown). */
  close?(): void;
}

export type { TokenizerLoadOptions };

export interface TokenizerLoaders {
  /** `loadTokenizerDir`: `tokenizer.json` + `tokenizer_config.json` (and friends) in `dir`. */
  loadDir(dir: string, opts: TokenizerLoadOptions): Promise<ModelTokenizer>;
  /** `loadTokenizerBundle`: a verified ZIP from `GetTokenizer`; `origin` is `worker:<url>`. */
  loadBundle(
    bundle: TokenizerBundle,
    opts: TokenizerLoadOptions & { origin: string },
  ): Promise<ModelTokenizer>;
}

/**
 * Stand-ins for a gateway built without the tokenizer module: no model ever has a tokenizer,
 * and every load fails with `reason`.
 */
export function unavailableTokenizers(reason: string): {
  tokenizers: TokenizerRegistryLike;
  loaders: TokenizerLoaders;
} {
  const fail = (): Promise<never> => Promise.reject(new Error(reason));
  return {
    tokenizers: {
      get: () => undefined,
      has: () => false,
      models: () => [],
      set: () => {
        throw new Error(reason);
      },
      remove: () => undefined,
      register: fail,
      onChange: () => () => undefined,
    },
    loaders: { loadDir: fail, loadBundle: fail },
  };
}
