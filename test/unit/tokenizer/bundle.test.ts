// GetTokenizer bundles built here with fflate from the Qwen3 files: a good one loads with the
// worker as its source; each refusal SMG makes (digest, missing digest, entry count, path
// traversal, absolute path, declared size) gives its own error; no temp directory is left.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { zipSync, type Zippable } from 'fflate';
import { loadTokenizerBundle } from '../../../src/tokenizer/bundle.js';
import { TokenizerBundleError } from '../../../src/tokenizer/errors.js';
import { QWEN3_FILES } from './qwen3-fixture.js';

const OPTS = {
  modelId: 'Qwen/Qwen3-0.6B',
  origin: 'worker:grpc://10.0.0.1:30000',
  l0: { enabled: true, maxEntries: 100 },
};
const qwen3Files: Zippable = {
  'tokenizer.json': readFileSync(join(QWEN3_FILES, 'tokenizer.json')),
  'tokenizer_config.json': readFileSync(join(QWEN3_FILES, 'tokenizer_config.json')),
  'config.json': Buffer.from(JSON.stringify({ eos_token_id: 151645 })),
};

function bundle(files: Zippable): { data: Buffer; sha256: string } {
  const data = Buffer.from(zipSync(files, { level: 1 }));
  return { data, sha256: createHash('sha256').update(data).digest('hex') };
}
const leftovers = (): string[] =>
  readdirSync(tmpdir()).filter((n) => n.startsWith('switchyard-tokenizer-'));

async function refusedWith(b: { data: Buffer; sha256: string }, pattern: RegExp): Promise<void> {
  const before = leftovers().length;
  await assert.rejects(loadTokenizerBundle(b, OPTS), (err: unknown) => {
    assert.ok(err instanceof TokenizerBundleError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
  assert.equal(leftovers().length, before, 'no temp directory left behind');
}

void describe('tokenizer bundle', () => {
  it('loads a good bundle, with the worker as its source, and removes its directory', async () => {
    const before = leftovers().length;
    const good = bundle(qwen3Files);
    const tok = await loadTokenizerBundle({ ...good, sha256: good.sha256.toUpperCase() }, OPTS);
    assert.equal(tok.source, 'worker:grpc://10.0.0.1:30000');
    assert.deepEqual(tok.encode('Hello world', false), [9707, 1879]);
    assert.deepEqual(tok.eosTokenIds, [151645]);
    assert.equal(tok.hasChatTemplate, true);
    assert.equal(leftovers().length, before);
  });

  it('refuses a digest that does not match, in SMG words', async () => {
    const b = bundle({ 'a.txt': Buffer.from('a') });
    await refusedWith({ ...b, sha256: '0'.repeat(64) }, /Bundle fingerprint mismatch/);
  });

  it('refuses a bundle without a digest, and an empty one', async () => {
    await refusedWith({ ...bundle({ 'a.txt': Buffer.from('a') }), sha256: '' }, /no sha256/);
    await refusedWith({ data: Buffer.alloc(0), sha256: 'ab' }, /empty/);
  });

  it('refuses more than 50 entries', async () => {
    const files: Zippable = {};
    for (let i = 0; i < 51; i++) files[`f${i}.txt`] = Buffer.from('x');
    await refusedWith(bundle(files), /51 entries, over 50/);
  });

  it('refuses entry paths that could leave the directory', async () => {
    const x = Buffer.from('x');
    await refusedWith(bundle({ '../x': x }), /contains \.\./);
    await refusedWith(bundle({ 'a/../../x': x }), /contains \.\./);
    await refusedWith(bundle({ '/etc/x': x }), /absolute path/);
    await refusedWith(bundle({ 'C:/x': x }), /drive prefix/);
    await refusedWith(bundle({ 'a\\..\\x': x }), /backslash/);
  });

  it('refuses a bundle whose declared sizes exceed 500 MiB, before inflating it', async () => {
    const b = bundle({ 'big.bin': Buffer.from('small') });
    // The central directory's uncompressed size (offset 24 of the PK\1\2 header) claims ~4 GiB.
    const at = b.data.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    b.data.writeUInt32LE(0xfffffff0, at + 24);
    const sha256 = createHash('sha256').update(b.data).digest('hex');
    await refusedWith({ data: b.data, sha256 }, /unpacks to 4294967280 bytes, over/);
  });

  it('refuses data that is not a ZIP', async () => {
    const data = Buffer.from('not a zip at all');
    await refusedWith(
      { data, sha256: createHash('sha256').update(data).digest('hex') },
      /not a valid ZIP/,
    );
  });

  it('a bundle that passes its checks but has no tokenizer.json fails and leaves nothing', async () => {
    const before = leftovers().length;
    await assert.rejects(
      loadTokenizerBundle(bundle({ 'vocab.json': Buffer.from('{}') }), OPTS),
      /no tokenizer\.json/,
    );
    assert.equal(leftovers().length, before);
  });
});
