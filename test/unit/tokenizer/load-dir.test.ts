// Loading a tokenizer directory: EOS ids merged from config.json and generation_config.json only,
// the chat template found in SMG's order, other tokenizer formats refused by name, and the
// ModelTokenizer's encode (L0), decode, token lookups and stop decoder over the loaded files.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TokenizerLoadError } from '../../../src/tokenizer/errors.js';
import { loadTokenizerDir } from '../../../src/tokenizer/load-dir.js';
import { resolveChatTemplate } from '../../../src/tokenizer/template-source.js';
import type { ModelTokenizer, StopStep } from '../../../src/tokenizer/types.js';
import { loadQwen3, qwen3Dir, QWEN3_EOS } from './qwen3-fixture.js';

const L0 = { enabled: true, maxEntries: 100 };
const dirs: string[] = [];
function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tok-dir-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  dirs.push(dir);
  return dir;
}
const textOf = (steps: StopStep[]): string =>
  steps.map((s) => (s.kind === 'held' ? '' : s.text)).join('');

void describe('loadTokenizerDir', () => {
  let tok: ModelTokenizer;
  before(async () => {
    tok = await loadQwen3();
  });
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('merges eos_token_id from config.json and generation_config.json', () => {
    assert.deepEqual(tok.eosTokenIds, QWEN3_EOS);
    assert.equal(tok.vocabSize, 151669);
    assert.equal(tok.modelId, 'Qwen/Qwen3-0.6B');
  });

  it('the EOS ids stop a decoder as hidden stop tokens', () => {
    const d = tok.stopDecoder({
      hiddenStops: [],
      visibleStops: [],
      hiddenStopTokenIds: tok.eosTokenIds,
      visibleStopTokenIds: [],
      skipSpecialTokens: true,
    });
    const steps = [...tok.encode('Hi there', false), 151645, 9707].map((id) => d.push(id));
    assert.equal(textOf(steps), 'Hi there');
    assert.deepEqual(steps[2], { kind: 'stopped', text: '', matched: 151645 });
    assert.equal(d.stopped, true);
  });

  it('encode returns the cached, frozen ids on a repeat', () => {
    const first = tok.encode('a prompt seen twice', false);
    assert.equal(tok.encode('a prompt seen twice', false), first);
    assert.ok(Object.isFrozen(first));
  });

  it('decode drops ids the tokenizer does not know, as the Rust crate does', () => {
    assert.equal(tok.decode([9707, 151_900, 1879], false), 'Hello world');
    assert.equal(tok.decode([151_900], false), '');
    assert.equal(tok.decode([], false), '');
    assert.equal(tok.decode([9707, 151645], true), 'Hello');
  });

  it('tokenToId finds added tokens and vocabulary entries in their own spelling', () => {
    assert.equal(tok.tokenToId('<|im_end|>'), 151645);
    assert.equal(tok.tokenToId('Hello'), 9707);
    assert.equal(tok.tokenToId('Ġworld'), 1879);
    assert.equal(tok.tokenToId(' world'), undefined, 'byte-level spells it Ġworld');
    assert.equal(tok.tokenToId('Hello world'), undefined);
    assert.equal(tok.idToToken(151645), '<|im_end|>');
    assert.equal(tok.idToToken(151_900), undefined);
  });

  it('without config files there are no EOS ids; a chat_template.jinja beats the config', async () => {
    const dir = qwen3Dir({ 'chat_template.jinja': '{{ messages[0].content }}!' });
    dirs.push(dir);
    const bare = await loadTokenizerDir(dir, {
      modelId: 'm',
      l0: { enabled: false, maxEntries: 0 },
    });
    assert.deepEqual(bare.eosTokenIds, []);
    assert.equal(bare.source, dir);
    assert.equal(
      bare.renderChat({ messages: [{ content: 'hi' }], addGenerationPrompt: true }),
      'hi!',
    );
    assert.notEqual(bare.encode('x', false), bare.encode('x', false), 'no L0: a fresh array');
  });

  it('refuses a directory without tokenizer.json, naming what it found', async () => {
    const dir = tempDir({ 'vocab.json': '{}', 'merges.txt': '', 'tokenizer_config.json': '{}' });
    await assert.rejects(
      loadTokenizerDir(dir, { modelId: 'm', l0: L0 }),
      (err: unknown) =>
        err instanceof TokenizerLoadError &&
        /no tokenizer\.json/.test(err.message) &&
        /vocab\.json \+ merges\.txt/.test(err.message),
    );
    await assert.rejects(
      loadTokenizerDir(tempDir({ 'tiktoken.model': '' }), { modelId: 'm', l0: L0 }),
      /tiktoken\.model \(tiktoken\)/,
    );
    await assert.rejects(
      loadTokenizerDir(join(dir, 'nope'), { modelId: 'm', l0: L0 }),
      /does not exist/,
    );
  });
});

void describe('chat template resolution', () => {
  const config = { chat_template: 'from config' };

  it('prefers chat_template.json, then chat_template.jinja, then another .jinja, then the config', async () => {
    const all = {
      'chat_template.json': JSON.stringify({ chat_template: 'from json' }),
      'chat_template.jinja': 'from jinja',
      'b.jinja': 'from b',
      'a.jinja': 'from a',
    };
    const pick = async (files: Record<string, string>): Promise<string | undefined> =>
      (await resolveChatTemplate(tempDir(files), config, undefined))?.source;
    assert.equal(await pick(all), 'from json');
    const { 'chat_template.json': _j, ...noJson } = all;
    assert.equal(await pick(noJson), 'from jinja');
    const { 'chat_template.jinja': _k, ...others } = noJson;
    assert.equal(await pick(others), 'from a');
    assert.equal(await pick({}), 'from config');
    assert.equal(await resolveChatTemplate(tempDir({}), {}, undefined), undefined);
  });

  it('takes the template named "default" from the list form', async () => {
    const listed = {
      chat_template: [
        { name: 'tool_use', template: 'tools' },
        { name: 'default', template: 'plain' },
      ],
    };
    assert.equal((await resolveChatTemplate(tempDir({}), listed, undefined))?.source, 'plain');
  });

  it('an explicit path wins: .jinja text, or .json as a string or with chat_template', async () => {
    const dir = tempDir({
      'x.jinja': 'explicit jinja',
      's.json': JSON.stringify('json string'),
      'o.json': JSON.stringify({ chat_template: 'json object' }),
      'chat_template.jinja': 'in dir',
    });
    const pick = async (name: string): Promise<string | undefined> =>
      (await resolveChatTemplate(dir, config, join(dir, name)))?.source;
    assert.equal(await pick('x.jinja'), 'explicit jinja');
    assert.equal(await pick('s.json'), 'json string');
    assert.equal(await pick('o.json'), 'json object');
    await assert.rejects(pick('missing.jinja'), /does not exist/);
  });
});
