/**
 * A tokenizer fetched from a worker with GetTokenizer: a ZIP of the model's tokenizer files with
 * the SHA-256 of the whole ZIP on the last chunk (grpc-mode.md §3.1, correction 7). Every check
 * SMG makes runs before anything is unpacked, the ZIP goes to a fresh temporary directory, and
 * that directory is removed whether the load succeeds or not.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { unzipSync, type UnzipFileInfo } from 'fflate';
import { TokenizerBundleError } from './errors.js';
import { loadTokenizerDir, type TokenizerLoadOptions } from './load-dir.js';
import type { ModelTokenizer } from './types.js';

/** SMG's limits: the ZIP as sent, its entry count, and the sum of its declared sizes. */
export const MAX_BUNDLE_BYTES = 200 * 1024 * 1024;
export const MAX_BUNDLE_ENTRIES = 50;
export const MAX_BUNDLE_UNCOMPRESSED_BYTES = 500 * 1024 * 1024;

export interface TokenizerBundle {
  data: Buffer;
  /** Hex SHA-256 of `data`, from the last chunk. */
  sha256: string;
}

/**
 * Verifies, unpacks and loads a bundle. `origin` (e.g. `worker:grpc://host:port`) becomes the
 * tokenizer's source. Throws TokenizerBundleError for a refused bundle, TokenizerLoadError when
 * the unpacked files do not load.
 */
export async function loadTokenizerBundle(
  bundle: TokenizerBundle,
  opts: TokenizerLoadOptions & { origin: string },
): Promise<ModelTokenizer> {
  verifyBundle(bundle);
  const entries = checkedEntries(bundle.data);
  const files = unzip(bundle.data, () => true);
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-tokenizer-'));
  try {
    for (const entry of entries) {
      const target = resolve(dir, entry.name);
      // Checked by name already; this catches anything path.resolve reads differently.
      if (!target.startsWith(dir + sep)) throw refused(`entry ${entry.name} leaves the bundle`);
      if (entry.name.endsWith('/')) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, files[entry.name] ?? new Uint8Array(0));
    }
    const { origin, ...load } = opts;
    return await loadTokenizerDir(dir, { ...load, source: origin });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Size and digest, before the ZIP is parsed at all. */
function verifyBundle({ data, sha256 }: TokenizerBundle): void {
  if (data.length === 0) throw refused('the tokenizer bundle is empty');
  if (!sha256) throw refused('the tokenizer bundle has no sha256 on its last chunk');
  if (data.length > MAX_BUNDLE_BYTES) {
    throw refused(`the tokenizer bundle is ${data.length} bytes, over ${MAX_BUNDLE_BYTES}`);
  }
  const actual = createHash('sha256').update(data).digest('hex');
  if (actual !== sha256.trim().toLowerCase()) {
    // SMG's wording, so an operator who knows one gateway's logs can read the other's.
    throw refused(`Bundle fingerprint mismatch: expected ${sha256}, computed ${actual}`);
  }
}

/**
 * Reads the central directory without inflating anything (the filter refuses every entry) and
 * checks the count, the declared sizes and every name. fflate inflates an entry into a buffer
 * of its declared size, so the declared total bounds the memory the real unzip can use.
 */
function checkedEntries(data: Buffer): UnzipFileInfo[] {
  const entries: UnzipFileInfo[] = [];
  unzip(data, (info) => {
    entries.push(info);
    return false;
  });
  if (entries.length > MAX_BUNDLE_ENTRIES) {
    throw refused(`the tokenizer bundle has ${entries.length} entries, over ${MAX_BUNDLE_ENTRIES}`);
  }
  const total = entries.reduce((sum, e) => sum + e.originalSize, 0);
  if (total > MAX_BUNDLE_UNCOMPRESSED_BYTES) {
    throw refused(
      `the tokenizer bundle unpacks to ${total} bytes, over ${MAX_BUNDLE_UNCOMPRESSED_BYTES}`,
    );
  }
  for (const { name } of entries) {
    const problem = unsafeName(name);
    if (problem !== undefined) throw refused(`entry ${JSON.stringify(name)} ${problem}`);
  }
  return entries;
}

/** Why an entry name could write outside the directory, or undefined when it cannot. */
function unsafeName(name: string): string | undefined {
  if (name === '' || name.includes('\0')) return 'is not a file name';
  if (name.includes('\\')) return 'contains a backslash';
  if (name.startsWith('/')) return 'is an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'has a drive prefix';
  if (name.split('/').includes('..')) return 'contains ..';
  return undefined;
}

function unzip(data: Buffer, filter: (info: UnzipFileInfo) => boolean): Record<string, Uint8Array> {
  try {
    return unzipSync(data, { filter });
  } catch (err) {
    if (err instanceof TokenizerBundleError) throw err;
    throw refused(`the tokenizer bundle is not a valid ZIP: ${(err as Error).message}`);
  }
}

function refused(message: string): TokenizerBundleError {
  return new TokenizerBundleError(message);
}
