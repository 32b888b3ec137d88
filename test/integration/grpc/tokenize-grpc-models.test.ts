// In gRPC mode the token routes see the tokenizers the gateway loaded for its gRPC workers,
// under the model id. They are one registry with the gRPC pipeline's, as in SMG: deleting a
// model's tokenizer makes its requests 503 tokenizer_not_found (and readiness 503), and a
// tokenizer POSTed under the model's name is then the one the pipeline encodes prompts with.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import {
  generateRequests,
  startGrpcGateway,
  startQwenEngine,
  waitForReadiness,
} from '../../helpers/grpc.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import {
  listTokenizers,
  pollStatus,
  qwen3DirWithAddedToken,
  referenceTokenizer,
} from '../../helpers/tokenizers.js';

const MARK = '<|gateway-mark|>';
let engine: SimWorker;
let gateway: Gateway;

before(async () => {
  engine = await startQwenEngine();
  gateway = await startGrpcGateway([engine]);
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await engine.close();
});

const chat = (content: string): Promise<Response> =>
  postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'qwen3',
    messages: [{ role: 'user', content }],
    max_tokens: 2,
  });

test("a gRPC worker's model tokenizer is listed and tokenizes under the model id", async () => {
  const [entry, ...rest] = await listTokenizers(gateway);
  assert.deepEqual(rest, []);
  assert.equal(entry?.name, 'qwen3');
  assert.equal(entry.vocab_size, referenceTokenizer().get_vocab(false).size);
  const text = 'tokens of the gRPC model';
  const want = referenceTokenizer().encode(text, { add_special_tokens: false }).ids;
  for (const model of ['qwen3', entry.id, '']) {
    const res = await postJson(`${gateway.url}/v1/tokenize`, { model, prompt: text });
    assert.deepEqual(((await res.json()) as { tokens: number[] }).tokens, want, model);
  }
});

test('a deleted model tokenizer stops the model; one POSTed under its name serves it', async () => {
  const del = await fetch(`${gateway.url}/v1/tokenizers/qwen3`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  await del.arrayBuffer();
  await assertGatewayError(await chat('hi'), 503, 'tokenizer_not_found');
  await waitForReadiness(gateway, 503);

  const marked = qwen3DirWithAddedToken(MARK);
  const res = await postJson(`${gateway.url}/v1/tokenizers`, { name: 'qwen3', source: marked.dir });
  assert.equal(res.status, 202);
  const { id } = (await res.json()) as { id: string };
  assert.equal((await pollStatus(gateway, id)).status, 'completed');
  await waitForReadiness(gateway, 200);

  const from = generateRequests(engine).length;
  const answer = await chat(`say ${MARK} back`);
  assert.equal(answer.status, 200, await answer.clone().text());
  await answer.arrayBuffer();
  const sent = generateRequests(engine)[from]?.tokenized as { input_ids: number[] } | undefined;
  // Only the POSTed tokenizer knows the mark as one token: the pipeline encoded with it.
  assert.ok(sent?.input_ids.includes(marked.id), 'the engine got the added token id');
});
