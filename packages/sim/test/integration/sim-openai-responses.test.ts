// OpenAI chat/completions as the simulator serves them: JSON and SSE shapes, usage, n > 1, the
// length cap, determinism under a seed, and what /sim/stats records about the request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseData } from '../../src/testing.js';

type Json = Record<string, unknown>;
interface Choice {
  index: number;
  text?: string;
  message?: { role: string; content: string };
  delta?: { role?: string; content?: string };
  finish_reason: string | null;
}

let w: SimWorker;
let other: SimWorker;

async function post(target: SimWorker, path: string, body: unknown, headers: Json = {}) {
  const res = await request(`${target.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers } as Record<string, string>,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

async function postJson(target: SimWorker, path: string, body: unknown): Promise<Json> {
  const r = await post(target, path, body);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['content-type'], 'application/json');
  return JSON.parse(r.text) as Json;
}

async function postStream(target: SimWorker, path: string, body: Json): Promise<Json[]> {
  const r = await post(target, path, { ...body, stream: true });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['content-type'], 'text/event-stream');
  const data = parseSseData(r.text);
  assert.equal(data.at(-1), '[DONE]');
  return data.slice(0, -1).map((d) => JSON.parse(d) as Json);
}

const choicesOf = (body: Json): Choice[] => body['choices'] as Choice[];
const chat = (content: string, extra: Json = {}): Json => ({
  model: 'sim-model',
  messages: [{ role: 'user', content }],
  ...extra,
});

void describe('OpenAI chat/completions', () => {
  before(async () => {
    w = await startSimWorker({ runtime: 'vllm', ttftMs: 1, itlMs: 1, outputTokens: 6, seed: 7 });
    other = await startSimWorker({
      runtime: 'sglang',
      ttftMs: 1,
      itlMs: 1,
      outputTokens: 6,
      seed: 8,
    });
  });
  after(async () => {
    await Promise.all([w.close(), other.close()]);
  });

  void it('answers a chat completion with default length, stop and usage', async () => {
    const body = await postJson(w, '/v1/chat/completions', chat('Hello, world!'));
    assert.equal(body['object'], 'chat.completion');
    assert.match(body['id'] as string, /^chatcmpl-/);
    assert.equal(body['model'], 'sim-model');
    const [choice] = choicesOf(body);
    assert.equal(choice?.message?.role, 'assistant');
    assert.equal(choice?.message?.content.split(' ').length, 6);
    assert.equal(choice?.finish_reason, 'stop');
    assert.deepEqual(body['usage'], { prompt_tokens: 6, completion_tokens: 6, total_tokens: 12 });
  });

  void it('caps with max_tokens (finish_reason length) and returns n choices', async () => {
    const body = await postJson(w, '/v1/chat/completions', chat('cap me', { max_tokens: 3, n: 3 }));
    const choices = choicesOf(body);
    assert.deepEqual(
      choices.map((c) => c.index),
      [0, 1, 2],
    );
    for (const c of choices) {
      assert.equal(c.finish_reason, 'length');
      assert.equal(c.message?.content.split(' ').length, 3);
    }
    assert.notEqual(choices[0]?.message?.content, choices[1]?.message?.content);
    assert.equal((body['usage'] as Json)['completion_tokens'], 9);
  });

  void it('streams chat chunks: role first, one token per chunk, finish, usage, [DONE]', async () => {
    const req = chat('stream me', { max_tokens: 4, n: 2, stream_options: { include_usage: true } });
    const chunks = await postStream(w, '/v1/chat/completions', req);
    const text = ['', ''];
    for (const chunk of chunks.slice(0, -1)) {
      assert.equal(chunk['object'], 'chat.completion.chunk');
      const [c] = choicesOf(chunk);
      assert.ok(c);
      text[c.index] += c.delta?.content ?? '';
    }
    const firstOfChoice1 = chunks.find((c) => choicesOf(c)[0]?.index === 1);
    assert.deepEqual(choicesOf(firstOfChoice1 ?? {})[0]?.delta, { role: 'assistant', content: '' });
    const finishes = chunks.filter((c) => choicesOf(c)[0]?.finish_reason === 'length');
    assert.equal(finishes.length, 2);
    const usageChunk = chunks.at(-1) ?? {};
    assert.deepEqual(choicesOf(usageChunk), []);
    assert.equal((usageChunk['usage'] as Json)['completion_tokens'], 8);
    // The stream carries the same text as the non-streaming answer.
    const whole = await postJson(
      w,
      '/v1/chat/completions',
      chat('stream me', { max_tokens: 4, n: 2 }),
    );
    assert.deepEqual(
      choicesOf(whole).map((c) => c.message?.content),
      text,
    );
  });

  void it('omits the usage chunk unless include_usage is set', async () => {
    const chunks = await postStream(w, '/v1/chat/completions', chat('no usage', { max_tokens: 2 }));
    assert.ok(chunks.every((c) => c['usage'] === undefined));
    assert.equal(choicesOf(chunks.at(-1) ?? {})[0]?.finish_reason, 'length');
  });

  void it('answers completions, streamed and not, with text choices', async () => {
    const body = await postJson(w, '/v1/completions', { prompt: 'Once upon', max_tokens: 5 });
    assert.equal(body['object'], 'text_completion');
    const [choice] = choicesOf(body);
    assert.equal(choice?.finish_reason, 'length');
    const chunks = await postStream(w, '/v1/completions', {
      prompt: 'Once upon',
      max_tokens: 5,
      stream_options: { include_usage: true },
    });
    const streamed = chunks.map((c) => choicesOf(c)[0]?.text ?? '').join('');
    assert.equal(streamed, choice?.text);
    assert.equal(chunks.length, 5 + 1 + 1, 'tokens, finish, usage');
    assert.deepEqual(chunks.at(-1)?.['usage'], {
      prompt_tokens: 2,
      completion_tokens: 5,
      total_tokens: 7,
    });
  });

  void it('is deterministic under the same seed and differs under another', async () => {
    const req = chat('determinism check', { max_tokens: 8 });
    const a = choicesOf(await postJson(w, '/v1/chat/completions', req))[0]?.message?.content;
    const b = choicesOf(await postJson(w, '/v1/chat/completions', req))[0]?.message?.content;
    const c = choicesOf(await postJson(other, '/v1/chat/completions', req))[0]?.message?.content;
    const d = choicesOf(
      await postJson(w, '/v1/chat/completions', chat('another prompt', { max_tokens: 8 })),
    );
    assert.equal(a, b);
    assert.notEqual(a, c);
    assert.notEqual(a, d[0]?.message?.content);
  });

  void it('records the last request and counts completions by path', async () => {
    const before = w.stats();
    await post(w, '/v1/chat/completions', chat('record me', { max_tokens: 1 }), {
      'x-request-id': 'abc',
    });
    const stats = w.stats();
    assert.equal(stats.lastRequest?.path, '/v1/chat/completions');
    assert.equal(stats.lastRequest?.headers['x-request-id'], 'abc');
    assert.deepEqual(stats.lastRequest?.body, chat('record me', { max_tokens: 1 }));
    const path = '/v1/chat/completions';
    assert.equal(stats.requests[path], (before.requests[path] ?? 0) + 1);
    assert.equal(stats.completed, before.completed + 1);
    assert.equal(stats.running, 0);
  });

  void it('answers 400 to bad JSON and to invalid fields', async () => {
    const badJson = await post(w, '/v1/chat/completions', '{"messages": [');
    assert.equal(badJson.status, 400);
    assert.equal(badJson.headers['content-type'], 'application/json');
    assert.match(badJson.text, /not valid JSON/);
    const badField = await post(w, '/v1/completions', { prompt: 'x', n: -1 });
    assert.equal(badField.status, 400);
    assert.match(badField.text, /'n'/);
  });
});
