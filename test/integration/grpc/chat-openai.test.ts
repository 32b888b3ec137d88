// A gRPC fleet through the official openai client: the gateway renders Qwen3's chat template,
// tokenizes, sends token ids to a simulated SGLang engine and turns its ids back into OpenAI JSON
// and SSE (acceptance A4, A6-A10). The engine answers "Hello world" then EOS, so the text, the
// stops and the counts are known exactly.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSimGrpcWorker, type SimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import type { Gateway } from '../../../src/server/gateway.js';
import { createHfTokenizer } from '../../../src/tokenizer/hf-library.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import {
  generateRequests,
  QWEN3_DIR,
  QWEN3_EOS,
  qwen3DirWithEos,
  startGrpcGateway,
  startQwenEngine,
} from '../../helpers/grpc.js';

let engine: SimWorker;
let gateway: Gateway;
let client: OpenAI;

/** The fixture's own tokenizer, through the library directly: the expectation, not our code. */
const reference = createHfTokenizer(
  JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer.json'), 'utf8')) as object,
  JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer_config.json'), 'utf8')) as object,
);

/** The fields of a streamed chunk these tests read. */
interface Chunk {
  id: string;
  model: string;
  created: number;
  system_fingerprint: string;
  choices: {
    index: number;
    delta?: { role?: string; content?: string };
    finish_reason: string | null;
    matched_stop?: unknown;
  }[];
  usage?: { completion_tokens: number };
}

const chunksOf = (frames: string[]): Chunk[] =>
  frames.slice(0, -1).map((f) => JSON.parse(f) as Chunk);

before(async () => {
  engine = await startQwenEngine({
    runtime: 'sglang',
    tokenizerDir: qwen3DirWithEos(),
    answerText: 'Hello world',
    weightVersion: 'w-7',
  });
  gateway = await startGrpcGateway([engine]);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  await engine.close();
});

function lastRequest(): Record<string, unknown> {
  const all = generateRequests(engine);
  const last = all.at(-1);
  assert.ok(last, 'the engine received a GenerateRequest');
  return last;
}

/** Raw SSE `data:` payloads of a streamed POST. */
async function streamRaw(path: string, body: Record<string, unknown>): Promise<string[]> {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  return parseSseData(await res.text());
}

void describe('gRPC chat through the openai client', () => {
  void it('sends the template-rendered prompt as token ids encoded without special tokens (A4)', async () => {
    const reply = await client.chat.completions.create({
      model: 'qwen3',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    assert.equal(reply.choices[0]?.message.content, 'Hello world');
    const sent = lastRequest();
    const rendered =
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n';
    const tokenized = sent.tokenized as { input_ids: number[]; original_text: string };
    assert.equal(tokenized.original_text, rendered);
    assert.deepEqual(
      tokenized.input_ids,
      reference.encode(rendered, { add_special_tokens: false }).ids,
    );
  });

  void it('answers a whole chat with finish, usage, fingerprint and a request id as SMG (A6, A9)', async () => {
    const reply = await client.chat.completions.create({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const choice = reply.choices[0];
    assert.equal(choice?.message.content, 'Hello world');
    assert.equal(choice?.finish_reason, 'stop');
    // The EOS id is a hidden stop: not rendered, and named as the matched stop.
    assert.equal((choice as unknown as { matched_stop: unknown }).matched_stop, QWEN3_EOS);
    assert.equal(reply.system_fingerprint, 'w-7');
    assert.equal(reply.model, 'qwen3');
    const sent = lastRequest();
    assert.match(
      String(sent.request_id),
      /^chatcmpl-[A-Za-z0-9]{24}-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(reply.id, sent.request_id);
    const promptTokens = (sent.tokenized as { input_ids: number[] }).input_ids.length;
    assert.equal(reply.usage?.prompt_tokens, promptTokens);
    assert.equal(reply.usage?.completion_tokens, 3, 'Hello, world, EOS');
  });

  void it('sends a client rid as the engine request id, as is (A6)', async () => {
    await client.chat.completions.create({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      // @ts-expect-error SGLang's extension field
      rid: 'my-request-1',
    });
    assert.equal(lastRequest().request_id, 'my-request-1');
  });

  void it('streams a role chunk, deltas that add up to the text, a finish chunk, usage and [DONE] (A7)', async () => {
    const frames = await streamRaw('/v1/chat/completions', {
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      stream_options: { include_usage: true },
    });
    assert.equal(frames.at(-1), '[DONE]');
    const chunks = chunksOf(frames);
    assert.deepEqual(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' });
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    assert.equal(text, 'Hello world');
    const finish = chunks.at(-2);
    assert.equal(finish?.choices[0]?.finish_reason, 'stop');
    const usage = chunks.at(-1);
    assert.deepEqual(usage?.choices, []);
    assert.equal(usage?.usage?.completion_tokens, 3);
    for (const c of chunks) {
      assert.equal(c.id, chunks[0]?.id);
      assert.equal(c.model, 'qwen3');
      assert.equal(c.created, chunks[0]?.created);
      assert.equal(c.system_fingerprint, 'w-7');
    }
    const plain = await streamRaw('/v1/chat/completions', {
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.ok(
      plain.slice(0, -1).every((f) => (JSON.parse(f) as { usage?: unknown }).usage === undefined),
      'no usage chunk unless stream_options.include_usage',
    );
  });

  void it('never shows half a character when a multi-byte one is split across tokens (A7)', async () => {
    // The simulator's tiny byte-level tokenizer splits every non-ASCII character over several
    // tokens, and loads in milliseconds (Qwen3's split is covered by the tokenizer unit tests).
    const multi = await startSimGrpcWorker({
      runtime: 'sglang',
      answerText: '你好，世界 🌍👋🏽 🫠𠜎',
      model: 'qwen3-mb',
      ttftMs: 1,
      itlMs: 1,
    });
    const gw = await startGrpcGateway([multi]);
    try {
      const c = new OpenAI({ apiKey: 'unused', baseURL: `${gw.url}/v1`, maxRetries: 0 });
      const stream = await c.chat.completions.create({
        model: 'qwen3-mb',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta.content ?? '';
        assert.ok(!delta.includes('\uFFFD'), `a delta with U+FFFD: ${JSON.stringify(delta)}`);
        text += delta;
      }
      assert.equal(text, '你好，世界 🌍👋🏽 🫠𠜎');
      await assertAllReleased(gw);
    } finally {
      await gw.close();
      await multi.close();
    }
  });

  void it('trims a stop string that spans two tokens and pins finish_reason stop (A8)', async () => {
    const reply = await client.chat.completions.create({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      stop: ['lo wo'],
    });
    assert.equal(reply.choices[0]?.message.content, 'Hel');
    assert.equal(reply.choices[0]?.finish_reason, 'stop');
    assert.equal((reply.choices[0] as unknown as { matched_stop: unknown }).matched_stop, 'lo wo');
    // SGLang is sent no stop strings (it refuses them); the gateway enforces this one itself.
    const sampling = lastRequest().sampling_params as { stop?: string[] };
    assert.deepEqual(sampling.stop ?? [], []);
  });

  void it('keeps the stop text with no_stop_trim, and a later engine "length" does not override a local stop (A8)', async () => {
    const kept = await client.chat.completions.create({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      stop: ['lo wo'],
      // @ts-expect-error SGLang's extension field
      no_stop_trim: true,
    });
    assert.equal(kept.choices[0]?.message.content, 'Hello wo');
    // Two tokens: the engine ends with "length" right as the gateway matches the stop.
    const frames = await streamRaw('/v1/chat/completions', {
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      stop: ['lo wo'],
      max_tokens: 2,
    });
    const chunks = chunksOf(frames);
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Hel');
    assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
    assert.equal(chunks.at(-1)?.choices[0]?.matched_stop, 'lo wo');
  });

  void it('does not stop at EOS with ignore_eos (A9)', async () => {
    const reply = await client.chat.completions.create({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 5,
      // @ts-expect-error SGLang's extension field
      ignore_eos: true,
    });
    assert.equal(reply.choices[0]?.finish_reason, 'length');
    assert.equal(reply.usage?.completion_tokens, 5);
    assert.ok(reply.choices[0]?.message.content?.startsWith('Hello world'));
  });

  void it('answers n=2 with two choices and usage as SMG adds it up (A10)', async () => {
    const reply = await client.chat.completions.create({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      n: 2,
    });
    assert.deepEqual(
      reply.choices.map((c) => [c.index, c.message.content, c.finish_reason]),
      [
        [0, 'Hello world', 'stop'],
        [1, 'Hello world', 'stop'],
      ],
    );
    const prompt = (lastRequest().tokenized as { input_ids: number[] }).input_ids.length;
    assert.equal(reply.usage?.prompt_tokens, prompt, 'prompt: the max over samples');
    assert.equal(reply.usage?.completion_tokens, 6, 'completion: the sum over samples');
    const frames = await streamRaw('/v1/chat/completions', {
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Hi' }],
      n: 2,
      stop: ['lo wo'],
      stream_options: { include_usage: true },
    });
    const chunks = chunksOf(frames);
    for (const index of [0, 1]) {
      const mine = chunks.filter((c) => c.choices[0]?.index === index);
      assert.equal(mine.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Hel');
      assert.equal(mine.at(-1)?.choices[0]?.finish_reason, 'stop');
    }
  });

  void it('serves completions, with echo, streamed and not', async () => {
    const whole = await client.completions.create({ model: 'qwen3', prompt: 'Say it', echo: true });
    assert.equal(whole.choices[0]?.text, 'Say itHello world');
    assert.equal(whole.choices[0]?.finish_reason, 'stop');
    const sent = lastRequest();
    assert.deepEqual(
      (sent.tokenized as { input_ids: number[] }).input_ids,
      reference.encode('Say it').ids,
    );
    const stream = await client.completions.create({
      model: 'qwen3',
      prompt: 'Say it',
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    assert.equal(text, 'Hello world');
  });

  void it("serves SGLang's /generate, token ids in, streamed and not", async () => {
    const res = await fetch(`${gateway.url}/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen3',
        input_ids: [9707],
        sampling_params: { max_new_tokens: 8 },
      }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      text: string;
      output_ids: number[];
      meta_info: Record<string, unknown>;
    };
    assert.equal(body.text, 'Hello world');
    assert.deepEqual(body.meta_info.finish_reason, { type: 'stop' });
    assert.deepEqual((lastRequest().tokenized as { input_ids: number[] }).input_ids, [9707]);
    const frames = await streamRaw('/generate', { model: 'qwen3', text: 'Hi' });
    assert.equal(frames.at(-1), '[DONE]');
    const last = JSON.parse(frames.at(-2) ?? '{}') as {
      text: string;
      meta_info: { finish_reason: unknown };
    };
    assert.equal(last.text, 'Hello world');
    assert.equal(last.meta_info.finish_reason, 'stop');
  });

  void it('leaves nothing held', async () => {
    await assertAllReleased(gateway);
  });
});
