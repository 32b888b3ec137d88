// The official openai client against a real gateway in front of real simulated workers: chat and
// completions, streamed and not. Ends with the lease check.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

let fleet: SimWorker[];
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  fleet = await startSimFleet(2, { model: 'sim-model', ttftMs: 5, itlMs: 2 });
  gateway = await startTestGateway([
    '--policy',
    'round_robin',
    '--worker-urls',
    ...fleet.map((w) => w.url),
  ]);
  await waitForReadyWorkers(gateway, 2);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

test('chat completion through the gateway', async () => {
  const reply = await client.chat.completions.create({
    model: 'sim-model',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 8,
  });
  assert.equal(reply.object, 'chat.completion');
  assert.equal(reply.choices.length, 1);
  assert.ok((reply.choices[0]?.message.content ?? '').length > 0);
  assert.equal(reply.usage?.completion_tokens, 8);
  assert.equal(reply.choices[0]?.finish_reason, 'length');
});

test('streamed chat completion arrives as chunks and assembles into the same text', async () => {
  const request = {
    model: 'sim-model',
    messages: [{ role: 'user' as const, content: 'Stream please' }],
    max_tokens: 10,
  };
  const whole = await client.chat.completions.create(request);
  const stream = await client.chat.completions.create({ ...request, stream: true });
  let text = '';
  let chunks = 0;
  for await (const chunk of stream) {
    chunks += 1;
    text += chunk.choices[0]?.delta.content ?? '';
  }
  assert.ok(chunks >= 10, `expected a chunk per token, got ${chunks}`);
  // The simulator is deterministic per prompt, whichever worker answers.
  assert.equal(text, whole.choices[0]?.message.content);
});

test('completion, streamed and not', async () => {
  const reply = await client.completions.create({
    model: 'sim-model',
    prompt: 'Once upon a time',
    max_tokens: 6,
  });
  assert.equal(reply.object, 'text_completion');
  assert.ok((reply.choices[0]?.text ?? '').length > 0);

  const stream = await client.completions.create({
    model: 'sim-model',
    prompt: 'Once upon a time',
    max_tokens: 6,
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
  assert.equal(text, reply.choices[0]?.text);
});

test('responses carry the routed worker and the request id', async () => {
  const { response, data } = await client.chat.completions
    .create(
      { model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
      { headers: { 'x-request-id': 'req-42' } },
    )
    .withResponse();
  assert.ok(data.id);
  const routed = response.headers.get('x-smg-routed-worker-id');
  assert.ok(
    fleet.some((w) => w.url === routed),
    `unexpected routed worker ${routed}`,
  );
  assert.equal(response.headers.get('x-request-id'), 'req-42');
});

test('an unknown model is a 404 model_not_found through the SDK', async () => {
  await assert.rejects(
    client.chat.completions.create({
      model: 'no-such-model',
      messages: [{ role: 'user', content: 'x' }],
    }),
    (err: unknown) =>
      err instanceof OpenAI.NotFoundError &&
      (err.error as { code?: string }).code === 'model_not_found',
  );
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
