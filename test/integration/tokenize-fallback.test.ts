// Which tokenizer /v1/tokenize and /v1/detokenize use (SMG's get_tokenizer): the one named, or
// the one with that id; for "" and "unknown" the first by name (not the first added); for any
// other miss a 400 tokenizer_not_found in SMG's body listing the names, and with no tokenizer at
// all a 400 saying how to add one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway } from '../helpers/gateway.js';
import { QWEN3_DIR } from '../helpers/grpc.js';
import { postJson } from '../helpers/http.js';
import { pollStatus, qwen3DirWithAddedToken } from '../helpers/tokenizers.js';

const MARK = '<|alpha-mark|>';
let gateway: Gateway;
let markId: number;
let alphaId: string;

before(async () => {
  gateway = await startTestGateway([]);
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
});

async function add(name: string, source: string): Promise<string> {
  const res = await postJson(`${gateway.url}/v1/tokenizers`, { name, source });
  assert.equal(res.status, 202, await res.clone().text());
  const { id } = (await res.json()) as { id: string };
  assert.equal((await pollStatus(gateway, id)).status, 'completed');
  return id;
}

async function tokenizeMark(model: string): Promise<Response> {
  return postJson(`${gateway.url}/v1/tokenize`, { model, prompt: MARK });
}

async function assertNotFound(res: Response, message: string): Promise<void> {
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('x-smg-error-code'), 'tokenizer_not_found');
  assert.deepEqual(await res.json(), { error: { message, type: 'tokenizer_not_found' } });
}

test('with no tokenizer, even the fallback is a 400 that says how to add one', async () => {
  for (const model of ['', 'unknown', 'some-model']) {
    await assertNotFound(
      await tokenizeMark(model),
      'No tokenizers available. Use POST /v1/tokenizers to add one.',
    );
  }
  await assertNotFound(
    await postJson(`${gateway.url}/v1/detokenize`, { model: '', tokens: [1] }),
    'No tokenizers available. Use POST /v1/tokenizers to add one.',
  );
});

test('"" and "unknown" use the first tokenizer by name', async () => {
  // Added second but first by name: the fallback follows the name order.
  await add('zeta', QWEN3_DIR);
  const marked = qwen3DirWithAddedToken(MARK);
  markId = marked.id;
  alphaId = await add('alpha', marked.dir);
  for (const model of ['', 'unknown']) {
    const res = await tokenizeMark(model);
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { tokens: number[] }).tokens, [markId], model);
  }
});

test('a name or an id picks that tokenizer', async () => {
  const zeta = await tokenizeMark('zeta');
  const zetaTokens = ((await zeta.json()) as { tokens: number[] }).tokens;
  assert.ok(zetaTokens.length > 1, 'plain Qwen3 splits the mark');
  const byId = await tokenizeMark(alphaId);
  assert.deepEqual(((await byId.json()) as { tokens: number[] }).tokens, [markId]);
  const back = await postJson(`${gateway.url}/v1/detokenize`, {
    model: 'zeta',
    tokens: zetaTokens,
  });
  assert.deepEqual(await back.json(), { text: MARK });
});

test('any other model is a 400 listing the tokenizers there are', async () => {
  const listed = "Tokenizer for model 'Zeta' not found. Available: alpha, zeta";
  await assertNotFound(await tokenizeMark('Zeta'), listed);
  await assertNotFound(
    await postJson(`${gateway.url}/v1/detokenize`, { model: 'Zeta', tokens: [[1]] }),
    listed,
  );
});
