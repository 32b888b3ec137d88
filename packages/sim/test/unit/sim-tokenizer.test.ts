// The tokenizer a gRPC worker answers with: the tiny one shipped in assets/ round-trips any UTF-8
// text and splits English into word pieces; EOS comes from config.json or tokenizer_config.json;
// the GetTokenizer bundle is a ZIP of the directory's tokenizer files with its sha256.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { defaultTokenizerDir, loadSimTokenizer } from '../../src/sim-tokenizer.js';

void describe('sim tokenizer', () => {
  void it('the tiny tokenizer round-trips any UTF-8 text', async () => {
    const tok = await loadSimTokenizer(undefined);
    for (const text of [
      'Hello world',
      'héllo 日本語 🚂\n\t  x',
      '<|im_start|>user\nhi<|im_end|>\n',
      '',
    ]) {
      assert.equal(tok.decode(tok.encode(text)), text);
    }
  });

  void it('splits English into word pieces, with a ChatML template and EOS <|im_end|>', async () => {
    const tok = await loadSimTokenizer(undefined);
    assert.deepEqual(
      tok.encode('Hello world').map((id) => tok.decode([id])),
      ['Hello', ' world'],
    );
    assert.ok(tok.encode('the train runs north past the bridge').length <= 8);
    const eos = tok.eosTokenIds[0];
    assert.ok(eos !== undefined);
    assert.equal(tok.decode([eos]), '<|im_end|>');
    assert.equal(tok.decode([eos], true), '');
    const config = JSON.parse(
      readFileSync(join(defaultTokenizerDir(), 'tokenizer_config.json'), 'utf8'),
    ) as Record<string, unknown>;
    assert.match(String(config['chat_template']), /<\|im_start\|>/);
    let bytes = 0;
    for (const f of readdirSync(defaultTokenizerDir()))
      bytes += statSync(join(defaultTokenizerDir(), f)).size;
    assert.ok(bytes < 300_000, `tiny tokenizer is ${bytes} bytes`);
  });

  void it('EOS: config.json first, then tokenizer_config eos_token, and an override wins', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-tok-'));
    try {
      const src = defaultTokenizerDir();
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
        writeFileSync(join(dir, f), readFileSync(join(src, f)));
      }
      const noConfig = await loadSimTokenizer(dir);
      assert.equal(noConfig.decode([...noConfig.eosTokenIds]), '<|im_end|>');
      const overridden = await loadSimTokenizer(dir, 7);
      assert.deepEqual(overridden.eosTokenIds, [7]);
      assert.equal(overridden.vocabSize, noConfig.vocabSize);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('bundles the tokenizer files into a ZIP whose sha256 is its digest', async () => {
    const tok = await loadSimTokenizer(undefined);
    const { zip, sha256 } = await tok.bundle();
    assert.equal(sha256, createHash('sha256').update(zip).digest('hex'));
    const files = unzipSync(zip);
    assert.deepEqual(Object.keys(files).sort(), [
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    assert.deepEqual(
      Buffer.from(files['tokenizer.json'] ?? new Uint8Array()),
      readFileSync(join(defaultTokenizerDir(), 'tokenizer.json')),
    );
    // Built once: the same bytes again.
    assert.equal((await tok.bundle()).sha256, sha256);
  });
});
