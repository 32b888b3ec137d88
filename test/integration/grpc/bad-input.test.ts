// Bad input in gRPC mode (issue 16, "Bad input"), end to end: a prompt longer than the model's
// context, a chat template that raises, and image content are each a 400 found while preparing
// the engine request, so the engine never sees them; an engine that sends a message the gateway
// cannot read fails that request with a 502 (or, streamed, one error event and [DONE]).
import assert from 'node:assert/strict';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSimGrpcWorker, type SimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, scrapeMetrics } from '../../helpers/gateway.js';
import { generateRequests, startGrpcGateway } from '../../helpers/grpc.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';
import { repoPath } from '../../helpers/repo-root.js';

const TINY_DIR = repoPath('packages', 'sim', 'assets', 'tiny-tokenizer');

/** The tiny tokenizer with a ChatML template that refuses a system message. */
function strictTemplateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-strict-template-'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json'])
    symlinkSync(join(TINY_DIR, f), join(dir, f));
  writeFileSync(
    join(dir, 'chat_template.jinja'),
    "{% for m in messages %}{% if m['role'] == 'system' %}" +
      "{{ raise_exception('System role not supported by this model') }}{% endif %}" +
      "<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}" +
      '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}',
  );
  return dir;
}

/** `short`: a 16-token context; `strict`: the raising template; `odd`: malformed answers. */
let short: SimWorker;
let strict: SimWorker;
let odd: SimWorker;
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  const common = { ttftMs: 1, itlMs: 1, answerText: 'Hello world' };
  short = await startSimGrpcWorker({
    ...common,
    runtime: 'sglang',
    model: 'short',
    maxContextLength: 16,
  });
  strict = await startSimGrpcWorker({
    ...common,
    runtime: 'vllm',
    model: 'strict',
    tokenizerDir: strictTemplateDir(),
  });
  odd = await startSimGrpcWorker({
    ...common,
    runtime: 'tokenspeed',
    model: 'odd',
    faults: { grpcMalformed: true },
  });
  gateway = await startGrpcGateway([short, strict, odd]);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  await Promise.all([short, strict, odd].map((e) => e.close()));
});

const chat = (body: Record<string, unknown>) =>
  postJson(`${gateway.url}/v1/chat/completions`, body);

void describe('bad input in gRPC mode', () => {
  void it('a prompt longer than the model’s context is 400 context_length_exceeded, never sent', async () => {
    // A short prompt fits (12 tokens of the 15 the engine takes) …
    const ok = await client.chat.completions.create({
      model: 'short',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 2,
    });
    assert.equal(ok.choices[0]?.message.content, 'Hello world');
    const sent = generateRequests(short).length;
    // … a long one does not.
    const res = await chat({
      model: 'short',
      messages: [{ role: 'user', content: 'Hi there, tell me a long story about the sea.' }],
    });
    const err = await assertGatewayError(res, 400, 'context_length_exceeded');
    assert.match(err.message, /limit of 15/);
    const completion = await postJson(`${gateway.url}/v1/completions`, {
      model: 'short',
      prompt: 'word '.repeat(40),
    });
    await assertGatewayError(completion, 400, 'context_length_exceeded');
    const generate = await postJson(`${gateway.url}/generate`, {
      model: 'short',
      input_ids: Array.from({ length: 16 }, () => 72),
    });
    await assertGatewayError(generate, 400, 'context_length_exceeded');
    assert.equal(generateRequests(short).length, sent, 'the engine never saw them');
  });

  void it('token ids outside the vocabulary are 400 invalid_request_parameters, never sent', async () => {
    const sent = generateRequests(short).length;
    for (const bad of [[72, 99_999_999], [4_294_967_295], [-1]]) {
      const res = await postJson(`${gateway.url}/generate`, { model: 'short', input_ids: bad });
      const err = await assertGatewayError(res, 400, 'invalid_request_parameters');
      assert.match(err.message, /not in the model's vocabulary/);
    }
    const completion = await postJson(`${gateway.url}/v1/completions`, {
      model: 'short',
      prompt: [72, 99_999_999],
    });
    await assertGatewayError(completion, 400, 'invalid_request_parameters');
    assert.equal(generateRequests(short).length, sent, 'the engine never saw them');
  });

  void it('a chat template that raises is 400 process_messages_failed with its message', async () => {
    const ok = await client.chat.completions.create({
      model: 'strict',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(ok.choices[0]?.message.content, 'Hello world');
    const sent = generateRequests(strict).length;
    const res = await chat({
      model: 'strict',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    const err = await assertGatewayError(res, 400, 'process_messages_failed');
    assert.match(err.message, /System role not supported by this model/);
    // Streamed, the answer is the same 400 (nothing was started).
    const streamed = await chat({
      model: 'strict',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    await assertGatewayError(streamed, 400, 'process_messages_failed');
    assert.equal(generateRequests(strict).length, sent);
  });

  void it('image content is 400 multimodal_not_supported', async () => {
    const sent = generateRequests(short).length;
    const errorsBefore = routerValidationErrors(await scrapeMetrics(gateway));
    const res = await chat({
      model: 'short',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    await assertGatewayError(res, 400, 'multimodal_not_supported');
    const generate = await postJson(`${gateway.url}/generate`, {
      model: 'short',
      text: 'Hi',
      image_data: 'data:image/png;base64,iVBORw0KGgo=',
    });
    await assertGatewayError(generate, 400, 'multimodal_not_supported');
    assert.equal(generateRequests(short).length, sent);
    // Counted as the gRPC router's own errors, as the relay counts its refusals.
    assert.equal(routerValidationErrors(await scrapeMetrics(gateway)), errorsBefore + 2);
  });

  void it('an engine message the gateway cannot read is a 502 worker_stream_failed, streamed an error event', async () => {
    const res = await chat({ model: 'odd', messages: [{ role: 'user', content: 'Hi' }] });
    const err = await assertGatewayError(res, 502, 'worker_stream_failed');
    assert.match(err.message, /malformed/);
    assert.ok(err.message.includes(odd.url), err.message);
    const streamed = await chat({
      model: 'odd',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(streamed.status, 200);
    const frames = parseSseData(await streamed.text());
    assert.equal(frames.at(-1), '[DONE]');
    assert.equal(frames.length, 2, frames.join('\n'));
    const event = JSON.parse(frames[0] ?? '{}') as { error: { message: string; type: string } };
    assert.equal(event.error.type, 'internal_error');
    assert.match(event.error.message, /^Stream error: .*neither chunk nor complete/);
  });

  void it('leaves nothing held', async () => {
    await assertAllReleased(gateway);
  });
});

/** smg_router_request_errors_total of the gRPC router for 400s, over every model and endpoint. */
function routerValidationErrors(text: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (
      line.startsWith('smg_router_request_errors_total{') &&
      line.includes('router_type="grpc"') &&
      line.includes('error_type="validation_error"')
    )
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
