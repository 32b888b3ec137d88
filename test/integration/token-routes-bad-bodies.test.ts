// Bodies the token routes refuse, each a 4xx with a stable code and never a crash: SMG's axum
// statuses (415 without a JSON Content-Type, 400 for bytes that are not JSON, 422 for JSON of the
// wrong shape) in Switchyard's envelope; the body size limit; batch, text and id-count bounds;
// token ids the tokenizer does not have; a lone surrogate. The gateway still serves afterwards.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { MAX_DETOKENIZE_TOKENS, MAX_TOKENIZE_CHARS } from '../../src/server/handlers/tokenize.js';
import { assertAllReleased, startTestGateway } from '../helpers/gateway.js';
import { QWEN3_DIR } from '../helpers/grpc.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { referenceTokenizer, waitForTokenizer } from '../helpers/tokenizers.js';

const PAYLOAD_LIMIT = 5_000_000;
let gateway: Gateway;
let vocabWithAdded: number;

before(async () => {
  vocabWithAdded = referenceTokenizer().get_vocab(true).size;
  gateway = await startTestGateway([
    '--tokenizer-path',
    QWEN3_DIR,
    '--max-payload-size',
    String(PAYLOAD_LIMIT),
  ]);
  await waitForTokenizer(gateway, QWEN3_DIR);
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
});

const url = (path: string): string => `${gateway.url}${path}`;

test('415 unsupported_media_type without a JSON Content-Type, closing the connection', async () => {
  for (const path of ['/v1/tokenize', '/v1/detokenize', '/v1/tokenizers']) {
    // A Uint8Array body carries no Content-Type; a string body is text/plain.
    const bare = await fetch(url(path), {
      method: 'POST',
      body: new TextEncoder().encode('{"model":"m","prompt":"x"}'),
    });
    assert.equal(bare.headers.get('connection'), 'close');
    await assertGatewayError(bare, 415, 'unsupported_media_type');
    const text = await fetch(url(path), { method: 'POST', body: '{}' });
    await assertGatewayError(text, 415, 'unsupported_media_type');
  }
  const vendor = await postJson(
    url('/v1/tokenize'),
    { model: QWEN3_DIR, prompt: 'x' },
    {
      'content-type': 'application/vnd.test+json; charset=utf-8',
    },
  );
  assert.equal(vendor.status, 200, 'application/*+json is JSON, as in axum');
  await vendor.arrayBuffer();
});

test('400 invalid_json for bytes that are not JSON, an empty body, or a lone surrogate', async () => {
  for (const body of ['{"model":', '', 'not json', '{"model":"m","prompt":"x"} trailing']) {
    await assertGatewayError(await postJson(url('/v1/tokenize'), body), 400, 'invalid_json');
  }
  await assertGatewayError(
    await postJson(url('/v1/detokenize'), '{"model":"m","tokens":[1'),
    400,
    'invalid_json',
  );
  const lone = await postJson(url('/v1/tokenize'), `{"model":"${QWEN3_DIR}","prompt":"a\\ud800b"}`);
  const err = await assertGatewayError(lone, 400, 'invalid_json');
  assert.match(err.message, /lone UTF-16 surrogate/);
});

test('422 unprocessable_entity for JSON of the wrong shape', async () => {
  const cases: [string, unknown, RegExp][] = [
    ['/v1/tokenize', [], /must be a JSON object/],
    ['/v1/tokenize', { prompt: 'x' }, /missing field `model`/],
    ['/v1/tokenize', { model: 'm' }, /missing field `prompt`/],
    ['/v1/tokenize', { model: 7, prompt: 'x' }, /`model` must be a string/],
    ['/v1/tokenize', { model: 'm', prompt: 3 }, /`prompt` must be a string or a list/],
    ['/v1/tokenize', { model: 'm', prompt: ['a', 1] }, /`prompt`/],
    ['/v1/tokenize', { model: 'm', prompt: null }, /`prompt`/],
    ['/v1/detokenize', { model: 'm' }, /missing field `tokens`/],
    ['/v1/detokenize', { model: 'm', tokens: [-1] }, /`tokens`/],
    ['/v1/detokenize', { model: 'm', tokens: [1.5] }, /`tokens`/],
    ['/v1/detokenize', { model: 'm', tokens: [2 ** 32] }, /`tokens`/],
    ['/v1/detokenize', { model: 'm', tokens: [1, [2]] }, /`tokens`/],
    ['/v1/detokenize', { model: 'm', tokens: 'abc' }, /`tokens`/],
    ['/v1/detokenize', { model: 'm', tokens: [1], skip_special_tokens: 'no' }, /skip_special/],
    ['/v1/detokenize', { model: 'm', tokens: [1], skip_special_tokens: null }, /skip_special/],
    ['/v1/tokenizers', { name: 'n' }, /missing field `source`/],
    ['/v1/tokenizers', { source: '/x' }, /missing field `name`/],
    ['/v1/tokenizers', { name: 'n', source: '/x', chat_template_path: 5 }, /chat_template_path/],
  ];
  for (const [path, body, message] of cases) {
    const err = await assertGatewayError(
      await postJson(url(path), body),
      422,
      'unprocessable_entity',
    );
    assert.match(err.message, message, `${path} ${JSON.stringify(body)}`);
  }
});

test('413 payload_too_large over --max-payload-size', async () => {
  const prompt = 'a'.repeat(PAYLOAD_LIMIT);
  const res = await postJson(url('/v1/tokenize'), { model: QWEN3_DIR, prompt });
  await assertGatewayError(res, 413, 'payload_too_large');
});

test('400 invalid_body past the batch, text and token-id bounds', async () => {
  const many = await postJson(url('/v1/tokenize'), {
    model: QWEN3_DIR,
    prompt: Array.from({ length: 2049 }, () => 'x'),
  });
  assert.match((await assertGatewayError(many, 400, 'invalid_body')).message, /2049 items/);
  const long = await postJson(url('/v1/tokenize'), {
    model: QWEN3_DIR,
    prompt: ['a'.repeat(MAX_TOKENIZE_CHARS), 'b'],
  });
  assert.match((await assertGatewayError(long, 400, 'invalid_body')).message, /characters/);
  const seqs = await postJson(url('/v1/detokenize'), {
    model: QWEN3_DIR,
    tokens: Array.from({ length: 2049 }, () => [1]),
  });
  assert.match((await assertGatewayError(seqs, 400, 'invalid_body')).message, /2049 sequences/);
  const ids = await postJson(
    url('/v1/detokenize'),
    `{"model":${JSON.stringify(QWEN3_DIR)},"tokens":[${'0,'.repeat(MAX_DETOKENIZE_TOKENS)}0]}`,
  );
  assert.match((await assertGatewayError(ids, 400, 'invalid_body')).message, /token ids/);
});

test('400 invalid_request_parameters for token ids the tokenizer does not have', async () => {
  // The last added token is the vocabulary's highest id; the next one has no token.
  const edge = await postJson(url('/v1/detokenize'), {
    model: QWEN3_DIR,
    tokens: [vocabWithAdded - 1],
    skip_special_tokens: false,
  });
  assert.equal(edge.status, 200);
  await edge.arrayBuffer();
  for (const [tokens, where] of [
    [[9707, vocabWithAdded], 'position 1'],
    [[[9707], [1, 2, 2 ** 32 - 1]], 'sequence 1, position 2'],
  ] as const) {
    const res = await postJson(url('/v1/detokenize'), { model: QWEN3_DIR, tokens });
    const err = await assertGatewayError(res, 400, 'invalid_request_parameters');
    assert.ok(err.message.includes(where), err.message);
  }
});

test('the gateway still serves after every refusal', async () => {
  const res = await postJson(url('/v1/tokenize'), { model: QWEN3_DIR, prompt: 'still here' });
  assert.equal(res.status, 200);
  assert.deepEqual(((await res.json()) as { tokens: number[] }).tokens, [
    ...referenceTokenizer().encode('still here', { add_special_tokens: false }).ids,
  ]);
});
