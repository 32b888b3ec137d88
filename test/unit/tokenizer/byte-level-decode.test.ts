// The byte-level fast path of incremental detokenization: streaming each token's bytes through
// one UTF-8 decoder gives exactly the library's decode of the whole sequence, never half a
// character, with special tokens skipped or kept, unknown ids dropped, and a character cut at
// the end released as U+FFFD, as a whole decode gives.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import {
  ByteLevelDecoder,
  ByteLevelVocab,
  isByteLevelTokenizer,
} from '../../../src/tokenizer/byte-level-decode.js';
import { createHfTokenizer, type HfTokenizer } from '../../../src/tokenizer/hf-library.js';
import { QWEN3_FILES } from './qwen3-fixture.js';

const TEXT = [
  'Plain ASCII with  double spaces,\ttabs and\nnewlines.',
  '中文的句子，带标点。日本語のテキスト、カタカナ。한국어 문장.',
  'Emoji: 🌍👋🏽👨‍👩‍👧‍👦🫠🦩 flags 🇫🇷🇯🇵 and math ∑∫√ plus ẞ café naïve 𠜎𝄞ꙮ.',
  '```ts\nconst x = { a: [1, 2, 3] }; // code\n```',
].join('\n');

void describe('byte-level incremental decode', () => {
  let json: object;
  let tok: HfTokenizer;
  let vocab: ByteLevelVocab;
  before(() => {
    json = JSON.parse(readFileSync(join(QWEN3_FILES, 'tokenizer.json'), 'utf8')) as object;
    const config = JSON.parse(
      readFileSync(join(QWEN3_FILES, 'tokenizer_config.json'), 'utf8'),
    ) as object;
    tok = createHfTokenizer(json, config);
    const special = [...tok.get_added_tokens_decoder()].filter(([, t]) => t.special);
    vocab = new ByteLevelVocab(
      tok,
      special.map(([id]) => id),
    );
  });

  const whole = (ids: number[], skip: boolean) =>
    tok.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false });

  function stream(ids: readonly number[], skip: boolean): { steps: string[]; text: string } {
    const d = new ByteLevelDecoder(vocab, skip);
    const steps = ids.map((id) => d.step(id));
    return { steps, text: steps.join('') + d.flush() };
  }

  void it('recognises Qwen3 as byte-level and a Metaspace tokenizer as not', () => {
    assert.equal(isByteLevelTokenizer(json), true);
    assert.equal(
      isByteLevelTokenizer({ model: { type: 'BPE' }, decoder: { type: 'Metaspace' } }),
      false,
    );
    assert.equal(
      isByteLevelTokenizer({
        model: { type: 'BPE', byte_fallback: true },
        decoder: { type: 'ByteLevel' },
      }),
      false,
    );
  });

  void it('streams exactly the whole decode and never half a character', () => {
    const ids = tok.encode(TEXT, { add_special_tokens: false }).ids;
    const { steps, text } = stream(ids, true);
    assert.equal(text, whole(ids, true));
    assert.equal(text, TEXT);
    for (const s of steps)
      assert.ok(!s.includes('\uFFFD'), `a step with U+FFFD: ${JSON.stringify(s)}`);
  });

  void it('keeps a leading byte order mark, as the library does', () => {
    const ids = tok.encode('\uFEFFhello', { add_special_tokens: false }).ids;
    assert.equal(stream(ids, true).text, whole(ids, true));
    assert.ok(stream(ids, true).text.startsWith('\uFEFF'));
  });

  void it('skips special tokens only when asked, as the library does', () => {
    const ids = tok.encode('<|im_start|>user\nHi<|im_end|>\n', { add_special_tokens: false }).ids;
    assert.equal(stream(ids, true).text, whole(ids, true));
    assert.equal(stream(ids, false).text, whole(ids, false));
    assert.ok(stream(ids, false).text.includes('<|im_start|>'));
  });

  void it('drops unknown ids and releases a character cut at the end as U+FFFD', () => {
    const ids = tok.encode('𠜎', { add_special_tokens: false }).ids;
    assert.ok(ids.length > 1, 'the character spans several byte tokens');
    const cut = ids.slice(0, -1);
    assert.equal(stream([...cut, 9_999_999], true).text, whole(cut, true));
    assert.ok(stream(cut, true).text.endsWith('\uFFFD'));
  });
});
