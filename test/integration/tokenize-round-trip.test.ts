// An HTTP-mode gateway started with --tokenizer-path tokenizes with it (SMG registers that
// tokenizer at startup under the path string): /v1/tokenize encodes without special tokens,
// exactly as the library's own encode does, with counts in tokens and in Unicode characters,
// batch-shaped when the prompt is a list; /v1/detokenize gives the text back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import type { HfTokenizer } from '../../src/tokenizer/hf-library.js';
import { assertAllReleased, startTestGateway } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import {
  QWEN3_ENDOFTEXT,
  qwen3DirWithBos,
  referenceTokenizer,
  waitForTokenizer,
  type TokenizerInfo,
} from '../helpers/tokenizers.js';

let gateway: Gateway;
let dir: string;
let ref: HfTokenizer;
let entry: TokenizerInfo;

const encode = (text: string, special: boolean): number[] =>
  ref.encode(text, { add_special_tokens: special }).ids;

before(async () => {
  dir = qwen3DirWithBos();
  ref = referenceTokenizer(dir);
  gateway = await startTestGateway(['--tokenizer-path', dir]);
  entry = await waitForTokenizer(gateway, dir);
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
});

async function call(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await postJson(`${gateway.url}${path}`, body);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as Record<string, unknown>;
}

test('the startup tokenizer is listed under its path, with the base vocabulary size', () => {
  assert.equal(entry.source, dir);
  assert.match(entry.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  // SMG reports the model's vocabulary without added tokens (get_vocab_size(false)).
  assert.equal(entry.vocab_size, ref.get_vocab(false).size);
  assert.notEqual(entry.vocab_size, ref.get_vocab(true).size);
});

test('a prompt is encoded without special tokens; counts are tokens and characters', async () => {
  const text = 'Héllo 👋 wörld, tokenize me';
  const without = encode(text, false);
  assert.notDeepEqual(without, encode(text, true), 'the fixture tells the two encodings apart');
  assert.equal(encode(text, true)[0], QWEN3_ENDOFTEXT);
  const got = await call('/v1/tokenize', { model: dir, prompt: text });
  assert.deepEqual(got, {
    tokens: without,
    count: without.length,
    // Unicode scalar values (Rust's chars().count()): the emoji is one, not two UTF-16 units.
    char_count: [...text].length,
  });
  assert.notEqual([...text].length, text.length);
});

test('a list of prompts is a batch: every field of the answer is a list', async () => {
  const prompts = ['first prompt', '<|im_start|>user\nsecond<|im_end|>', ''];
  const got = await call('/v1/tokenize', { model: dir, prompt: prompts });
  const tokens = prompts.map((p) => encode(p, false));
  assert.deepEqual(got, {
    tokens,
    count: tokens.map((t) => t.length),
    char_count: prompts.map((p) => [...p].length),
  });
  assert.deepEqual(await call('/v1/tokenize', { model: dir, prompt: [] }), {
    tokens: [],
    count: [],
    char_count: [],
  });
  assert.deepEqual(await call('/v1/tokenize', { model: dir, prompt: [''] }), {
    tokens: [[]],
    count: [0],
    char_count: [0],
  });
});

test('detokenize gives back the text tokenize was given, single and batch', async () => {
  const texts = ['The quick brown fox, 🦊, jumps.', '  two  spaces\tand a tab\n', '中文文本'];
  const single = (await call('/v1/tokenize', { model: dir, prompt: texts[0] })) as {
    tokens: number[];
  };
  assert.deepEqual(await call('/v1/detokenize', { model: dir, tokens: single.tokens }), {
    text: texts[0],
  });
  const batch = (await call('/v1/tokenize', { model: dir, prompt: texts })) as {
    tokens: number[][];
  };
  assert.deepEqual(await call('/v1/detokenize', { model: dir, tokens: batch.tokens }), {
    text: texts,
  });
});

test('skip_special_tokens defaults to true; false keeps them', async () => {
  const chat = '<|im_start|>user\nhi<|im_end|>';
  const ids = encode(chat, false);
  assert.equal(ids[0], ref.token_to_id('<|im_start|>'));
  const skipped = ref.decode(ids, { skip_special_tokens: true });
  assert.notEqual(skipped, chat);
  assert.deepEqual(await call('/v1/detokenize', { model: dir, tokens: ids }), { text: skipped });
  assert.deepEqual(
    await call('/v1/detokenize', { model: dir, tokens: ids, skip_special_tokens: true }),
    { text: skipped },
  );
  assert.deepEqual(
    await call('/v1/detokenize', { model: dir, tokens: [ids], skip_special_tokens: false }),
    { text: [chat] },
  );
});

test('an empty list is one empty sequence; a list of empty lists a batch', async () => {
  assert.deepEqual(await call('/v1/detokenize', { model: dir, tokens: [] }), { text: '' });
  assert.deepEqual(await call('/v1/detokenize', { model: dir, tokens: [[], []] }), {
    text: ['', ''],
  });
});
