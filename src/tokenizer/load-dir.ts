/**
 * Loads a model's tokenizer from a local directory (`--tokenizer-path`, a worker's label, or an
 * unpacked GetTokenizer bundle): tokenizer.json, tokenizer_config.json, the chat template and
 * the EOS ids (grpc-mode.md §3.1, correction 3).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ChatTemplate } from './chat-template.js';
import { TokenizerLoadError } from './errors.js';
import { createHfTokenizer, type HfTokenizer } from './hf-library.js';
import { ByteLevelVocab, isByteLevelTokenizer } from './byte-level-decode.js';
import { HfModelTokenizer } from './hf-tokenizer.js';
import { L0Cache } from './l0-cache.js';
import { resolveChatTemplate } from './template-source.js';
import type { ModelTokenizer } from './types.js';

export interface TokenizerLoadOptions {
  modelId: string;
  /** Reported as the tokenizer's source; the directory itself when not given. */
  source?: string | undefined;
  /** `--chat-template` or the model card's template: a .jinja file or a .json holding one. */
  chatTemplatePath?: string | undefined;
  l0: { enabled: boolean; maxEntries: number };
}

/**
 * Reads the directory (or the directory of a given tokenizer.json). A chat template that does
 * not parse fails the load here, once, rather than every request later.
 */
export async function loadTokenizerDir(
  path: string,
  opts: TokenizerLoadOptions,
): Promise<ModelTokenizer> {
  const dir = await directoryOf(path);
  const names = await readdir(dir);
  if (!names.includes('tokenizer.json')) throw new TokenizerLoadError(missingTokenizer(dir, names));
  const tokenizerJson = await readJson(join(dir, 'tokenizer.json'));
  const tokenizerConfig = names.includes('tokenizer_config.json')
    ? await readJson(join(dir, 'tokenizer_config.json'))
    : {};
  let tokenizer: HfTokenizer;
  try {
    tokenizer = createHfTokenizer(tokenizerJson, tokenizerConfig);
  } catch (err) {
    throw new TokenizerLoadError(
      `${join(dir, 'tokenizer.json')} cannot be loaded: ${(err as Error).message}`,
    );
  }
  const found = await resolveChatTemplate(dir, tokenizerConfig, opts.chatTemplatePath);
  let template: ChatTemplate | undefined;
  if (found !== undefined) {
    try {
      template = new ChatTemplate(found.source, found.origin);
    } catch (err) {
      throw new TokenizerLoadError((err as Error).message);
    }
  }
  return new HfModelTokenizer({
    modelId: opts.modelId,
    source: opts.source ?? dir,
    tokenizer,
    tokenizerConfig,
    eosTokenIds: await eosTokenIds(dir, names),
    template,
    l0: opts.l0.enabled ? new L0Cache({ maxEntries: opts.l0.maxEntries }) : undefined,
    byteLevel: isByteLevelTokenizer(tokenizerJson)
      ? new ByteLevelVocab(tokenizer, specialTokenIds(tokenizer))
      : undefined,
  });
}

async function directoryOf(path: string): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new TokenizerLoadError(`tokenizer path ${path} does not exist`);
  }
  if (info.isDirectory()) return path;
  if (basename(path) === 'tokenizer.json') return dirname(path);
  throw new TokenizerLoadError(
    `tokenizer path ${path} is neither a directory nor a tokenizer.json`,
  );
}

/** Names the other tokenizer formats SMG can load and we cannot, so the fix is obvious. */
function missingTokenizer(dir: string, names: readonly string[]): string {
  const found: string[] = [];
  if (names.includes('vocab.json') && names.includes('merges.txt')) {
    found.push('vocab.json + merges.txt (a slow BPE tokenizer)');
  }
  const tiktoken = names.filter((n) => n === 'tiktoken.model' || n.endsWith('.tiktoken'));
  if (tiktoken.length > 0) found.push(`${tiktoken.join(', ')} (tiktoken)`);
  if (names.includes('tokenizer.model')) found.push('tokenizer.model (SentencePiece)');
  const what = found.length > 0 ? `; found only ${found.join(' and ')}` : '';
  return (
    `no tokenizer.json in ${dir}${what}. Switchyard loads tokenizers only from tokenizer.json ` +
    `(save one with transformers' tokenizer.save_pretrained)`
  );
}

/**
 * EOS ids from config.json and generation_config.json only (SMG's eos.rs): `eos_token_id` is
 * an int or a list of ints. They are merged in that order without repeats; the tokenizer's own
 * eos_token is not added, so a directory without these files has no hidden EOS stops.
 */
async function eosTokenIds(dir: string, names: readonly string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const name of ['config.json', 'generation_config.json']) {
    if (!names.includes(name)) continue;
    const value = (await readJson(join(dir, name))).eos_token_id;
    for (const id of Array.isArray(value) ? value : [value]) {
      if (Number.isSafeInteger(id) && (id as number) >= 0 && !ids.includes(id as number)) {
        ids.push(id as number);
      }
    }
  }
  return ids;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new TokenizerLoadError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TokenizerLoadError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TokenizerLoadError(`${path} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** The ids of the added tokens marked special: the ones skip_special_tokens leaves out. */
function specialTokenIds(tokenizer: HfTokenizer): number[] {
  const ids: number[] = [];
  for (const [id, token] of tokenizer.get_added_tokens_decoder()) if (token.special) ids.push(id);
  return ids;
}
