/**
 * The gateway's tokenizers as SMG's tokenizer routes see them (`llm_tokenizer` `registry.rs`):
 * each entry has a name, which is its key in the TokenizerRegistry (a gRPC worker's model id, the
 * `--tokenizer-path`/`--model-path` string, or the name given to `POST /v1/tokenizers`), and an
 * opaque UUID v7 id given when the entry appears. The registry stays the one store: an entry
 * added here is the tokenizer the gRPC pipeline uses for a model of that name, as in SMG, where
 * the routes and the gRPC router share one registry.
 */
import type { ModelTokenizer } from './types.js';
import { uuidv7 } from '../util/uuid7.js';

/** The registry operations the catalog reads and changes (TokenizerRegistry's). */
export interface TokenizerStore {
  get(name: string): ModelTokenizer | undefined;
  has(name: string): boolean;
  models(): string[];
  set(tok: ModelTokenizer): void;
  remove(name: string): ModelTokenizer | undefined;
  onChange(listener: (name: string) => void): () => void;
}

export interface CatalogEntry {
  readonly id: string;
  readonly name: string;
  readonly tokenizer: ModelTokenizer;
}

export class TokenizerCatalog {
  readonly #store: TokenizerStore;
  readonly #newId: () => string;
  readonly #idByName = new Map<string, string>();
  readonly #nameById = new Map<string, string>();

  constructor(store: TokenizerStore, newId: () => string = () => uuidv7()) {
    this.#store = store;
    this.#newId = newId;
    // Entries also appear and go without the catalog (a gRPC worker's registration job), so the
    // ids follow the registry's own notifications.
    store.onChange((name) => this.#sync(name));
  }

  /** Every entry, ordered by name: SMG's `list()`, whose first entry is the fallback tokenizer. */
  list(): CatalogEntry[] {
    const entries: CatalogEntry[] = [];
    for (const name of this.#store.models()) {
      const entry = this.byName(name);
      if (entry !== undefined) entries.push(entry);
    }
    return entries.sort((a, b) => compareNames(a.name, b.name));
  }

  byName(name: string): CatalogEntry | undefined {
    const tokenizer = this.#store.get(name);
    return tokenizer === undefined ? undefined : { id: this.#idOf(name), name, tokenizer };
  }

  byId(id: string): CatalogEntry | undefined {
    const name = this.#nameById.get(id);
    return name === undefined ? undefined : this.byName(name);
  }

  /** SMG's `registry.get(key)`, the tokenize lookup: the name first, then the id. */
  byNameOrId(key: string): CatalogEntry | undefined {
    return this.byName(key) ?? this.byId(key);
  }

  /** SMG's admin lookup (info, status, delete): the id first, then the name. */
  byIdOrName(key: string): CatalogEntry | undefined {
    return this.byId(key) ?? this.byName(key);
  }

  has(name: string): boolean {
    return this.#store.has(name);
  }

  /**
   * Adds a loaded tokenizer (its `modelId` is the name) under a pre-given id, unless the name is
   * taken; false then. The id is bound before the registry notifies, so it is this one.
   */
  add(id: string, tok: ModelTokenizer): boolean {
    if (this.#store.has(tok.modelId)) return false;
    this.#bind(tok.modelId, id);
    this.#store.set(tok);
    return true;
  }

  /** Removes by id, else by name (SMG's DELETE); the removed entry, or undefined. */
  remove(key: string): CatalogEntry | undefined {
    const entry = this.byIdOrName(key);
    if (entry === undefined) return undefined;
    this.#store.remove(entry.name);
    this.#sync(entry.name);
    return entry;
  }

  #idOf(name: string): string {
    return this.#idByName.get(name) ?? this.#bind(name, this.#newId());
  }

  #bind(name: string, id: string): string {
    const old = this.#idByName.get(name);
    if (old !== undefined) this.#nameById.delete(old);
    this.#idByName.set(name, id);
    this.#nameById.set(id, name);
    return id;
  }

  #sync(name: string): void {
    if (this.#store.has(name)) {
      this.#idOf(name);
      return;
    }
    const id = this.#idByName.get(name);
    if (id === undefined) return;
    this.#idByName.delete(name);
    this.#nameById.delete(id);
  }
}

/** Rust's `String` order, by UTF-8 bytes (code points): not JS's UTF-16 `<`, nor localeCompare. */
function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
