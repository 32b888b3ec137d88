// The tokenizer flags are real flags with SMG's names, alias and CLI defaults; only the L1
// cache flags stay accepted without effect.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFlags, UsageError } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { buildConfig } from '../../../src/config/validate.js';

const build = (args: string[]) => buildConfig(parseFlags(args, GATEWAY_FLAGS));

void describe('tokenizer flags', () => {
  void it("default as SMG's CLI: autoload on, L0 off with 10000 entries, no paths", () => {
    const c = build([]);
    assert.equal(c.disableTokenizerAutoload, false);
    assert.equal(c.tokenizerCacheEnableL0, false);
    assert.equal(c.tokenizerCacheL0MaxEntries, 10000);
    assert.equal(c.modelPath, undefined);
    assert.equal(c.tokenizerPath, undefined);
    assert.equal(c.chatTemplate, undefined);
  });

  void it('parse every value, --model as the alias of --model-path', () => {
    const c = build([
      '--model',
      '/models/qwen',
      '--tokenizer-path',
      '/models/qwen-tok',
      '--chat-template',
      '/templates/chat.jinja',
      '--disable-tokenizer-autoload',
      '--tokenizer-cache-enable-l0',
      '--tokenizer-cache-l0-max-entries',
      '5',
    ]);
    assert.equal(c.modelPath, '/models/qwen');
    assert.equal(c.tokenizerPath, '/models/qwen-tok');
    assert.equal(c.chatTemplate, '/templates/chat.jinja');
    assert.equal(c.disableTokenizerAutoload, true);
    assert.equal(c.tokenizerCacheEnableL0, true);
    assert.equal(c.tokenizerCacheL0MaxEntries, 5);
    assert.equal(build(['--model-path', 'org/model']).modelPath, 'org/model');
  });

  void it('refuse a negative L0 size, as the usize SMG parses', () => {
    assert.throws(() => build(['--tokenizer-cache-l0-max-entries', '-1']), UsageError);
  });

  void it('are implemented, except the L1 cache flags', () => {
    const status = (name: string) => GATEWAY_FLAGS.find((f) => f.name === name)?.status;
    for (const name of [
      'model-path',
      'tokenizer-path',
      'chat-template',
      'disable-tokenizer-autoload',
      'tokenizer-cache-enable-l0',
      'tokenizer-cache-l0-max-entries',
    ]) {
      assert.equal(status(name), 'implemented', name);
    }
    assert.equal(status('tokenizer-cache-enable-l1'), 'no-effect');
    assert.equal(status('tokenizer-cache-l1-max-memory'), 'no-effect');
  });
});
