// gRPC failures, retries and aborts end to end (acceptance A11, A12, A13, A15): a start failure
// with UNAVAILABLE is retried on the other worker, INVALID_ARGUMENT is a final 400; a stream that
// dies mid-way ends the SSE stream with one error event and [DONE] and sends the engine `Abort`;
// a client that leaves aborts the engine request (SGLang with its reason, vLLM by id list), a
// finished one sends no Abort; a non-streamed answer whose stream fails is mapped from the gRPC
// code with `worker_stream_failed`, and a whole answer takes finish and usage from the completes.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSimGrpcWorker, type SimRuntime, type SimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { generateRequests, startGrpcGateway } from '../../helpers/grpc.js';
import { assertGatewayError, postJson } from '../../helpers/http.js';

/** Long enough that a client can leave mid-stream: one token every ITL_MS. */
const LONG_ANSWER = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
const ITL_MS = 20;

/**
 * Two SGLang engines of model `m` (round robin alternates them), a vLLM engine of `v`, and one
 * slow engine of each runtime (`slow-sglang`, `slow-vllm`) for the clients that leave.
 */
let a: SimWorker;
let b: SimWorker;
let v: SimWorker;
const slow = new Map<SimRuntime, SimWorker>();
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  const common = { ttftMs: 1, itlMs: 1, answerText: 'Hello world' };
  a = await startSimGrpcWorker({ ...common, runtime: 'sglang', model: 'm' });
  b = await startSimGrpcWorker({ ...common, runtime: 'sglang', model: 'm' });
  v = await startSimGrpcWorker({ ...common, runtime: 'vllm', model: 'v' });
  for (const runtime of ['sglang', 'vllm'] as const) {
    slow.set(
      runtime,
      await startSimGrpcWorker({
        runtime,
        model: `slow-${runtime}`,
        ttftMs: 1,
        itlMs: ITL_MS,
        answerText: LONG_ANSWER,
      }),
    );
  }
  gateway = await startGrpcGateway(
    [a, b, v, ...slow.values()],
    ['--policy', 'round_robin', '--disable-circuit-breaker'],
  );
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

afterEach(async () => {
  for (const e of [a, b, v, ...slow.values()]) e.setFaults({});
  await assertAllReleased(gateway);
});

after(async () => {
  await gateway.close();
  await Promise.all([a, b, v, ...slow.values()].map((e) => e.close()));
});

interface ChatChunk {
  id: string;
  choices: { delta?: { content?: string } }[];
}

const hi = [{ role: 'user' as const, content: 'Hi' }];
const sentTo = (...es: SimWorker[]) => es.reduce((n, e) => n + generateRequests(e).length, 0);

async function retries(): Promise<number> {
  const text = await scrapeMetrics(gateway);
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('smg_worker_retries_total{')) total += Number(line.split(' ').at(-1));
  return total;
}

/** The engine request ids of what `e` received since `from`. */
const idsSince = (e: SimWorker, from: number) =>
  generateRequests(e)
    .slice(from)
    .map((r) => String(r.request_id));

function abortsFor(e: SimWorker, id: string) {
  return (e.grpc?.aborts ?? []).filter((x) => x.requestIds.includes(id));
}

void describe('start failures (A11)', () => {
  void it('UNAVAILABLE at start is retried on the other worker and answered 200', async () => {
    a.setFaults({ errorRate: 1, grpcStatus: 14 });
    const before = await retries();
    const fromA = generateRequests(a).length;
    // Round robin: within two requests one starts on the failing engine.
    for (let i = 0; i < 2; i++) {
      const reply = await client.chat.completions.create({ model: 'm', messages: hi });
      assert.equal(reply.choices[0]?.message.content, 'Hello world');
    }
    assert.ok(generateRequests(a).length > fromA, 'the failing engine was tried');
    assert.ok((await retries()) > before, 'smg_worker_retries_total counted the retry');
    // Each attempt has its own engine request id.
    const failed = idsSince(a, fromA);
    for (const id of failed) assert.ok(!idsSince(b, 0).includes(id), 'a new id per attempt');
  });

  void it('INVALID_ARGUMENT at start is a final 400 start_generation_failed', async () => {
    for (const e of [a, b]) e.setFaults({ errorRate: 1, grpcStatus: 3, grpcMessage: 'bad ids' });
    const before = await retries();
    const sent = sentTo(a, b);
    const res = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: 'm',
      messages: hi,
    });
    const err = await assertGatewayError(res, 400, 'start_generation_failed');
    assert.match(err.message, /bad ids/);
    assert.equal(sentTo(a, b) - sent, 1, 'the engines saw exactly one request');
    assert.equal(await retries(), before, 'not retried');
  });
});

void describe('a stream that fails mid-way (A12)', () => {
  void it('ends the SSE stream with one error event and [DONE], is not retried, and aborts the engine request', async () => {
    for (const e of [a, b]) e.setFaults({ dropAfterChunks: 1, grpcMessage: 'engine fell over' });
    const sent = sentTo(a, b);
    const before = await retries();
    const res = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: 'm',
      messages: hi,
      stream: true,
    });
    assert.equal(res.status, 200);
    const frames = parseSseData(await res.text());
    assert.equal(frames.at(-1), '[DONE]');
    const errors = frames.filter((f) => f.includes('"error"'));
    assert.equal(errors.length, 1, frames.join('\n'));
    assert.equal(frames.at(-2), errors[0]);
    const error = JSON.parse(errors[0] ?? '{}') as { error: { message: string; type: string } };
    assert.equal(error.error.type, 'internal_error');
    assert.match(error.error.message, /^Stream error: .*engine fell over/);
    // The role chunk and the first token came before the failure.
    const first = JSON.parse(frames[0] ?? '{}') as { id: string };
    assert.equal(sentTo(a, b) - sent, 1, 'not retried');
    assert.equal(await retries(), before);
    const engine = generateRequests(a).some((r) => r.request_id === first.id) ? a : b;
    await waitFor(() => abortsFor(engine, first.id).length === 1, 'an Abort for the request');
    assert.equal(abortsFor(engine, first.id)[0]?.reason, 'Stream dropped');
  });
});

void describe('a client that leaves (A13)', () => {
  for (const runtime of ['sglang', 'vllm'] as const) {
    void it(`${runtime}: a disconnect mid-stream aborts the engine request within 1 s`, async () => {
      const engine = slow.get(runtime) as SimWorker;
      const controller = new AbortController();
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: `slow-${runtime}`, messages: hi, stream: true }),
        signal: controller.signal,
      });
      assert.equal(res.status, 200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let seen = '';
      let text = '';
      while (!text.includes('word1')) {
        const { value, done } = await reader.read();
        assert.ok(!done, 'the stream is still running');
        seen += decoder.decode(value, { stream: true });
        const events = seen.slice(0, seen.lastIndexOf('\n\n') + 2);
        text = parseSseData(events)
          .map((f) => (JSON.parse(f) as ChatChunk).choices[0]?.delta?.content ?? '')
          .join('');
      }
      const id = (JSON.parse(parseSseData(seen)[0] ?? '{}') as { id: string }).id;
      assert.equal(abortsFor(engine, id).length, 0);
      controller.abort();
      await waitFor(() => abortsFor(engine, id).length === 1, `an Abort for ${id}`, 1000);
      const abort = abortsFor(engine, id)[0];
      assert.deepEqual(abort?.requestIds, [id]);
      assert.equal(abort?.reason, runtime === 'sglang' ? 'Stream dropped' : undefined);
      // The call itself is cancelled too, so the Abort may find nothing left to end; either
      // way the engine stops generating.
      await waitFor(() => engine.stats().running === 0, 'the engine to stop generating');
    });
  }

  void it('a non-streamed request whose client leaves aborts the engine request', async () => {
    {
      const engine = slow.get('vllm') as SimWorker;
      const from = generateRequests(engine).length;
      const controller = new AbortController();
      const pending = fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'slow-vllm', messages: hi }),
        signal: controller.signal,
      }).catch((err: unknown) => err);
      await waitFor(() => generateRequests(engine).length > from, 'the engine got the request');
      const id = String(generateRequests(engine)[from]?.request_id);
      controller.abort();
      assert.ok((await pending) instanceof Error);
      await waitFor(() => abortsFor(engine, id).length === 1, `an Abort for ${id}`, 1000);
      assert.deepEqual(abortsFor(engine, id)[0]?.requestIds, [id]);
    }
  });

  void it('a client that leaves before the engine answered at all aborts the engine request', async () => {
    const engine = slow.get('sglang') as SimWorker;
    engine.setFaults({ hang: true });
    try {
      const from = generateRequests(engine).length;
      const controller = new AbortController();
      const pending = fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'slow-sglang', messages: hi, stream: true }),
        signal: controller.signal,
      }).catch((err: unknown) => err);
      await waitFor(() => generateRequests(engine).length > from, 'the engine got the request');
      const id = String(generateRequests(engine)[from]?.request_id);
      controller.abort();
      assert.ok((await pending) instanceof Error);
      await waitFor(() => abortsFor(engine, id).length === 1, `an Abort for ${id}`, 1000);
      assert.equal(abortsFor(engine, id)[0]?.reason, 'Stream dropped');
      await waitFor(() => engine.stats().running === 0, 'the engine to let the call go');
    } finally {
      engine.setFaults({});
    }
  });

  void it('a stream that completes sends no Abort', async () => {
    const s = await client.chat.completions.create({ model: 'v', messages: hi, stream: true });
    let id = '';
    let text = '';
    for await (const chunk of s) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, 'Hello world');
    const whole = await client.chat.completions.create({ model: 'v', messages: hi });
    await assertAllReleased(gateway);
    assert.deepEqual(abortsFor(v, id), []);
    assert.deepEqual(abortsFor(v, whole.id), []);
  });
});

void describe('non-streamed answers (A15)', () => {
  void it('a stream failure is the mapped status with worker_stream_failed, and aborts', async () => {
    // The engine sends its headers, then fails: the call started, so this is a stream failure
    // (a failure before the headers is a start failure). FAILED_PRECONDITION → 400, final.
    for (const e of [a, b]) e.setFaults({ dropAfterHead: true, grpcStreamStatus: 9 });
    const sent = sentTo(a, b);
    const fromA = generateRequests(a).length;
    const fromB = generateRequests(b).length;
    const res = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: hi });
    await assertGatewayError(res, 400, 'worker_stream_failed');
    assert.equal(sentTo(a, b) - sent, 1);
    const [id] = [...idsSince(a, fromA), ...idsSince(b, fromB)];
    assert.ok(id !== undefined);
    await waitFor(
      () => abortsFor(a, id).length + abortsFor(b, id).length === 1,
      `an Abort for ${id}`,
    );
  });

  void it('INTERNAL mid-stream is a retryable 500: retried on the other worker', async () => {
    a.setFaults({ dropAfterHead: true });
    b.setFaults({ dropAfterHead: true, maxFires: 1 });
    const before = await retries();
    const reply = await client.chat.completions.create({ model: 'm', messages: hi });
    assert.equal(reply.choices[0]?.message.content, 'Hello world');
    assert.ok((await retries()) > before);
    a.setFaults({ dropAfterHead: true });
    b.setFaults({ dropAfterHead: true });
    const res = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: hi });
    await assertGatewayError(res, 500, 'worker_stream_failed');
  });

  for (const [runtime, model] of [
    ['sglang', 'm'],
    ['vllm', 'v'],
  ] as const) {
    void it(`${runtime}: finish_reason and usage come from the completes`, async () => {
      const capped = await client.chat.completions.create({ model, messages: hi, max_tokens: 1 });
      assert.equal(capped.choices[0]?.message.content, 'Hello');
      assert.equal(capped.choices[0]?.finish_reason, 'length');
      assert.equal(capped.usage?.completion_tokens, 1);
      const two = await client.chat.completions.create({
        model,
        messages: hi,
        n: 2,
        max_tokens: 2,
      });
      assert.deepEqual(
        two.choices.map((c) => [c.message.content, c.finish_reason]),
        [
          ['Hello world', 'length'],
          ['Hello world', 'length'],
        ],
      );
      assert.equal(two.usage?.completion_tokens, 4);
    });
  }
});
