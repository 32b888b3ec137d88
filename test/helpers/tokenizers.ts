/**
 * For tests of the token routes: the Qwen3 tokenizer straight from @huggingface/tokenizers (the
 * reference the gateway's answers are checked against, not the gateway's own wrapper), a copy of
 * it whose encoding adds a special token so "without special tokens" can be told apart, and
 * waits on the tokenizer admin routes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '../../src/server/gateway.js';
import { createHfTokenizer, type HfTokenizer } from '../../src/tokenizer/hf-library.js';
import { QWEN3_DIR } from './grpc.js';
import { waitFor } from './wait-for.js';

/** Qwen3's `<|endoftext|>`: what the BOS copy prepends when special tokens are added. */
export const QWEN3_ENDOFTEXT = 151643;

function readJson(dir: string, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
}

/** The library's own tokenizer for a directory. */
export function referenceTokenizer(dir: string = QWEN3_DIR): HfTokenizer {
  return createHfTokenizer(readJson(dir, 'tokenizer.json'), readJson(dir, 'tokenizer_config.json'));
}

/**
 * Qwen3 with a post-processor that puts `<|endoftext|>` first when special tokens are added
 * (as a BOS-adding model's does); Qwen3 itself adds none, so its two encodings are the same.
 */
export function qwen3DirWithBos(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-qwen3-bos-'));
  const json = readJson(QWEN3_DIR, 'tokenizer.json');
  json.post_processor = {
    type: 'TemplateProcessing',
    single: [
      { SpecialToken: { id: '<|endoftext|>', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
    ],
    pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
    special_tokens: {
      '<|endoftext|>': { id: '<|endoftext|>', ids: [QWEN3_ENDOFTEXT], tokens: ['<|endoftext|>'] },
    },
  };
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    readFileSync(join(QWEN3_DIR, 'tokenizer_config.json')),
  );
  return dir;
}

/**
 * Qwen3 with one more added token, `content`, at the next free id: a tokenizer that encodes that
 * string to one id where plain Qwen3 needs several, so a test can tell which one answered.
 */
export function qwen3DirWithAddedToken(content: string): { dir: string; id: number } {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-qwen3-added-'));
  const json = readJson(QWEN3_DIR, 'tokenizer.json');
  const added = json.added_tokens as { id: number }[];
  const id = Math.max(...added.map((t) => t.id)) + 1;
  added.push({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: false,
  } as { id: number });
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    readFileSync(join(QWEN3_DIR, 'tokenizer_config.json')),
  );
  return { dir, id };
}

export interface TokenizerInfo {
  id: string;
  name: string;
  source: string;
  vocab_size: number;
}

export async function listTokenizers(
  gateway: Gateway,
  headers: Record<string, string> = {},
): Promise<TokenizerInfo[]> {
  const res = await fetch(`${gateway.url}/v1/tokenizers`, { headers });
  if (res.status !== 200) throw new Error(`GET /v1/tokenizers: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { tokenizers: TokenizerInfo[] }).tokenizers;
}

/** Waits until GET /v1/tokenizers lists `name`; returns its entry. */
export async function waitForTokenizer(
  gateway: Gateway,
  name: string,
  headers: Record<string, string> = {},
): Promise<TokenizerInfo> {
  let found: TokenizerInfo | undefined;
  await waitFor(
    async () => {
      found = (await listTokenizers(gateway, headers)).find((t) => t.name === name);
      return found !== undefined;
    },
    `tokenizer ${name} to be listed`,
    15_000,
  );
  return found as TokenizerInfo;
}

export interface JobAnswer {
  id: string;
  status: string;
  message: string;
  vocab_size?: number;
}

/** Polls GET /v1/tokenizers/{id}/status until the status is neither pending nor processing. */
export async function pollStatus(
  gateway: Gateway,
  id: string,
  headers: Record<string, string> = {},
): Promise<JobAnswer> {
  let last: JobAnswer | undefined;
  await waitFor(
    async () => {
      const res = await fetch(`${gateway.url}/v1/tokenizers/${encodeURIComponent(id)}/status`, {
        headers,
      });
      last = (await res.json()) as JobAnswer;
      return res.status !== 200 || !['pending', 'processing'].includes(last.status);
    },
    () => `job ${id} to finish (last: ${JSON.stringify(last)})`,
    15_000,
  );
  return last as JobAnswer;
}
