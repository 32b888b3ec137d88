// The tokenizer of a gRPC worker: maps answer text to the token ids a real engine would emit,
// knows the EOS id, and packs its directory into the ZIP that GetTokenizer serves. Loaded once per
// directory per process (Qwen3's tokenizer.json is 11 MB), and the ZIP is built once too.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as hf from '@huggingface/tokenizers';
import { zipSync } from 'fflate';

/**
 * The part of @huggingface/tokenizers the simulator uses. Its .d.ts files import without
 * extensions, which NodeNext resolution cannot follow, so the class is typed here.
 */
interface HfTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  decode(ids: number[], options: { skip_special_tokens: boolean }): string;
  token_to_id(token: string): number | undefined;
  get_vocab(withAddedTokens: boolean): Map<string, number>;
}
const Tokenizer = (
  hf as unknown as { Tokenizer: new (json: object, config: object) => HfTokenizer }
).Tokenizer;

export interface SimTokenizer {
  /** Absolute path of the directory (advertised as tokenizer_path). */
  readonly dir: string;
  /** Token ids of `text`, without special tokens added (as after a chat template). */
  encode(text: string): number[];
  decode(ids: readonly number[], skipSpecial?: boolean): string;
  /** EOS ids: the emitted one first. Empty when the directory names none. */
  readonly eosTokenIds: readonly number[];
  readonly vocabSize: number;
  readonly bosTokenId: number | undefined;
  readonly padTokenId: number | undefined;
  /**
   * Ids whose token text contains '-'. A text with a hyphen never tokenizes without one of them,
   * so a prompt that has none cannot hold the `<sim-answer>` directive and need not be decoded.
   */
  readonly hyphenIds: ReadonlySet<number>;
  /** The GetTokenizer bundle: a deflate ZIP of the directory's tokenizer files and its sha256. */
  bundle(): Promise<{ zip: Uint8Array; sha256: string }>;
}

/** Files a tokenizer bundle carries when present (SMG's tokenizer_bundle.py). */
const BUNDLE_FILES: ReadonlySet<string> = new Set([
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'generation_config.json',
  'special_tokens_map.json',
  'vocab.json',
  'merges.txt',
  'tokenizer.model',
  'tiktoken.model',
  'chat_template.json',
  'preprocessor_config.json',
]);
const BUNDLE_GLOB = /\.(tiktoken|jinja|model)$/;

/**
 * The tiny tokenizer shipped in `assets/`. Beside `dist/` in the package; the test runner
 * transpiles `src/` elsewhere, so fall back to the installed package's own folder.
 */
export function defaultTokenizerDir(): string {
  const local = fileURLToPath(new URL('../assets/tiny-tokenizer/', import.meta.url));
  if (existsSync(join(local, 'tokenizer.json'))) return local;
  const main = createRequire(import.meta.url).resolve('@switchyard/sim');
  return join(dirname(main), '..', 'assets', 'tiny-tokenizer');
}

const loaded = new Map<string, Promise<LoadedTokenizer>>();

/** Loads (or reuses) the tokenizer of `dir`; `eosOverride` replaces the directory's EOS ids. */
export async function loadSimTokenizer(
  dir: string | undefined,
  eosOverride?: number,
): Promise<SimTokenizer> {
  const abs = resolve(dir ?? defaultTokenizerDir());
  let p = loaded.get(abs);
  if (p === undefined) {
    p = LoadedTokenizer.load(abs);
    loaded.set(abs, p);
    p.catch(() => loaded.delete(abs));
  }
  const base = await p;
  return eosOverride === undefined ? base : base.withEos([eosOverride]);
}

type Json = Record<string, unknown>;

class LoadedTokenizer implements SimTokenizer {
  private zip: Promise<{ zip: Uint8Array; sha256: string }> | undefined;

  private constructor(
    readonly dir: string,
    private readonly tok: HfTokenizer,
    readonly eosTokenIds: readonly number[],
    readonly vocabSize: number,
    readonly bosTokenId: number | undefined,
    readonly padTokenId: number | undefined,
    readonly hyphenIds: ReadonlySet<number>,
    private readonly shared?: LoadedTokenizer,
  ) {}

  static async load(dir: string): Promise<LoadedTokenizer> {
    const tokenizerJson = await readJson(join(dir, 'tokenizer.json'), true);
    const tokenizerConfig = (await readJson(join(dir, 'tokenizer_config.json'), false)) ?? {};
    const config = (await readJson(join(dir, 'config.json'), false)) ?? {};
    const generation = (await readJson(join(dir, 'generation_config.json'), false)) ?? {};
    const tok = new Tokenizer(tokenizerJson ?? {}, tokenizerConfig);
    const idOf = (v: unknown): number | undefined => {
      const content = typeof v === 'object' && v !== null ? (v as Json)['content'] : v;
      return typeof content === 'string' ? tok.token_to_id(content) : undefined;
    };
    // EOS as SMG reads it (config.json, then generation_config.json); a directory without them
    // (Qwen3's fixture) falls back to tokenizer_config's eos_token.
    const eos = [...ids(config['eos_token_id']), ...ids(generation['eos_token_id'])];
    const fallback = idOf(tokenizerConfig['eos_token']);
    if (eos.length === 0 && fallback !== undefined) eos.push(fallback);
    let maxId = -1;
    const hyphenIds = new Set<number>();
    for (const [token, id] of tok.get_vocab(true)) {
      if (id > maxId) maxId = id;
      // Byte-level and SentencePiece vocabularies spell '-' as itself; byte fallback as <0x2D>.
      if (token.includes('-') || token === '<0x2D>') hyphenIds.add(id);
    }
    const vocabSize = typeof config['vocab_size'] === 'number' ? config['vocab_size'] : maxId + 1;
    return new LoadedTokenizer(
      dir,
      tok,
      [...new Set(eos)],
      vocabSize,
      firstId(config['bos_token_id']) ?? idOf(tokenizerConfig['bos_token']),
      firstId(config['pad_token_id']) ?? idOf(tokenizerConfig['pad_token']),
      hyphenIds,
    );
  }

  withEos(eos: readonly number[]): LoadedTokenizer {
    const { dir, tok, vocabSize, bosTokenId, padTokenId, hyphenIds } = this;
    return new LoadedTokenizer(dir, tok, eos, vocabSize, bosTokenId, padTokenId, hyphenIds, this);
  }

  encode(text: string): number[] {
    return this.tok.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[], skipSpecial = false): string {
    // The library refuses an empty list.
    if (ids.length === 0) return '';
    return this.tok.decode([...ids], { skip_special_tokens: skipSpecial });
  }

  bundle(): Promise<{ zip: Uint8Array; sha256: string }> {
    if (this.shared !== undefined) return this.shared.bundle();
    this.zip ??= buildBundle(this.dir);
    return this.zip;
  }
}

async function buildBundle(dir: string): Promise<{ zip: Uint8Array; sha256: string }> {
  const files: Record<string, Uint8Array> = {};
  for (const name of readdirSync(dir).sort()) {
    if (!BUNDLE_FILES.has(name) && !BUNDLE_GLOB.test(name)) continue;
    files[name] = await readFile(join(dir, name));
  }
  if (Object.keys(files).length === 0) throw new Error(`no tokenizer files in ${dir}`);
  // A fixed mtime keeps the bytes (and so the sha256) the same on every run.
  const zip = zipSync(files, { level: 6, mtime: new Date('2020-01-01T00:00:00Z') });
  return { zip, sha256: createHash('sha256').update(zip).digest('hex') };
}

async function readJson(path: string, required: boolean): Promise<Json | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`sim: cannot read ${path}: ${(err as Error).message}`);
  }
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`sim: ${path} is not a JSON object`);
  }
  return value as Json;
}

function ids(v: unknown): number[] {
  if (typeof v === 'number' && Number.isInteger(v)) return [v];
  if (Array.isArray(v)) return v.filter((x): x is number => typeof x === 'number');
  return [];
}

function firstId(v: unknown): number | undefined {
  return ids(v)[0];
}
