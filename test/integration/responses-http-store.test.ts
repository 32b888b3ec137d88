// The Responses API in HTTP mode: `/v1/responses` is relayed to the worker, and what passes
// through is also stored, so `GET /v1/responses/{id}` answers in every mode (SMG's HTTP router
// stores nothing). A request that continues a stored response or a conversation reaches the worker
// with that history in its `input` and without the ids, which only the gateway's store knows.
// Regular, and PD (an SGLang pair with bootstrap fields; a vLLM NIXL pair).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startGatewayFor } from '../helpers/gateway.js';
import { startRuntimePdSetup } from '../helpers/pd-fleet.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function regular(): Promise<{ worker: SimWorker; gateway: Gateway }> {
  const worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  const gateway = await startGatewayFor(worker.url);
  closers.push(async () => {
    await assertAllReleased(gateway);
    await gateway.close();
    await worker.close();
  });
  return { worker, gateway };
}

const client = (gateway: Gateway) =>
  new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });

function lastBody(worker: SimWorker | undefined): Record<string, unknown> {
  return worker?.stats().lastRequest?.body as Record<string, unknown>;
}

// Long enough to fill KV blocks: a vLLM prefill of a shorter prompt has nothing to hand off.
const LONG = 'Say something about the sea. '.repeat(12);

describe('Responses relayed to HTTP workers, and stored on the way', () => {
  it('regular: create and stream are stored under the worker’s ids and read back', async () => {
    const { gateway } = await regular();
    const c = client(gateway);
    const made = await c.responses.create({
      model: 'sim-model',
      input: 'hi <sim-answer>Hello from HTTP.</sim-answer>',
    });
    assert.equal(made.output_text, 'Hello from HTTP.');
    assert.deepEqual(await c.responses.retrieve(made.id), made);
    const items = await c.responses.inputItems.list(made.id);
    assert.equal(items.data.length, 1);

    const stream = c.responses.stream({
      model: 'sim-model',
      input: 'hi <sim-answer>Streamed from HTTP.</sim-answer>',
    });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'Streamed from HTTP.');
    const stored = await c.responses.retrieve(final.id);
    assert.equal(stored.output_text, final.output_text);
    assert.deepEqual(
      stored.output.map((i) => i.id),
      final.output.map((i) => i.id),
    );

    await c.responses.delete(final.id);
    await assert.rejects(c.responses.retrieve(final.id), { status: 404 });
  });

  it('regular: previous_response_id and conversation reach the worker as history', async () => {
    const { worker, gateway } = await regular();
    const c = client(gateway);
    const first = await c.responses.create({
      model: 'sim-model',
      input: 'My name is Ada. <sim-answer>Hello, Ada.</sim-answer>',
    });
    const second = await c.responses.create({
      model: 'sim-model',
      previous_response_id: first.id,
      input: 'Who am I? <sim-answer>Ada.</sim-answer>',
    });
    assert.equal(second.output_text, 'Ada.');
    const sent = lastBody(worker);
    assert.equal(sent.previous_response_id, undefined, 'the worker never sees the gateway’s ids');
    const input = sent.input as { type: string; role?: string }[];
    assert.deepEqual(
      input.map((i) => `${i.type}:${i.role ?? ''}`),
      ['message:user', 'message:assistant', 'message:user'],
    );
    // The chain continues across modes of continuing: the stored second turn links the first.
    const stored = await c.responses.retrieve(second.id);
    assert.equal(stored.previous_response_id, first.id);

    const conversation = await c.conversations.create({});
    await c.responses.create({
      model: 'sim-model',
      conversation: conversation.id,
      input: 'Remember 42. <sim-answer>Noted.</sim-answer>',
    });
    await c.responses.create({
      model: 'sim-model',
      conversation: conversation.id,
      input: 'What number? <sim-answer>42.</sim-answer>',
    });
    const turn = lastBody(worker);
    assert.equal(turn.conversation, undefined);
    assert.equal(
      (turn.input as unknown[]).length,
      3,
      'the conversation’s two items, then the new one',
    );
    const listed = await c.conversations.items.list(conversation.id, { order: 'asc' });
    assert.equal(listed.data.length, 4);
  });

  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`${runtime} PD: create and stream are answered by the pair and stored`, async () => {
      const setup = await startRuntimePdSetup(runtime);
      closers.push(async () => {
        await assertAllReleased(setup.gateway);
        await setup.close();
      });
      const c = client(setup.gateway);
      const made = await c.responses.create({
        model: 'sim-model',
        input: `${LONG} <sim-answer>From the pair.</sim-answer>`,
      });
      assert.equal(made.output_text, 'From the pair.');
      assert.deepEqual(await c.responses.retrieve(made.id), made);
      const final = await c.responses
        .stream({ model: 'sim-model', input: `${LONG} <sim-answer>Streamed pair.</sim-answer>` })
        .finalResponse();
      assert.equal(final.output_text, 'Streamed pair.');
      assert.equal((await c.responses.retrieve(final.id)).id, final.id);
      // vLLM's prefill is a one-token probe of its own: it keeps no copy of it.
      if (runtime === 'vllm') assert.equal(lastBody(setup.prefills[0]).store, false);
    });
  }
});
