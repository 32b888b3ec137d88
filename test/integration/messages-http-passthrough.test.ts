// The Anthropic Messages API in HTTP mode: `/v1/messages` and `/v1/messages/count_tokens` are
// relayed to the worker as the client sent them (SGLang and vLLM serve both), with Anthropic's
// `anthropic-version` and `anthropic-beta` headers passed on, regular and PD (an SGLang pair with
// bootstrap fields; a vLLM NIXL pair with the kv_transfer_params relay). The official
// `@anthropic-ai/sdk` is the client; with `--api-key` it may send the key as `x-api-key`, which
// never reaches a worker. Gateway errors on these routes are in Anthropic's shape.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { parseSseEvents } from '@switchyard/sim/testing';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startGatewayFor } from '../helpers/gateway.js';
import { startRuntimePdSetup, type PdSetup } from '../helpers/pd-fleet.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function regular(flags: string[] = []): Promise<{ worker: SimWorker; gateway: Gateway }> {
  const worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  const gateway = await startGatewayFor(worker.url, flags);
  closers.push(async () => {
    await assertAllReleased(gateway);
    await gateway.close();
    await worker.close();
  });
  return { worker, gateway };
}

async function pd(runtime: 'sglang' | 'vllm'): Promise<PdSetup> {
  const setup = await startRuntimePdSetup(runtime);
  closers.push(async () => {
    await assertAllReleased(setup.gateway);
    await setup.close();
  });
  return setup;
}

// Long enough to fill KV blocks: a vLLM prefill of a shorter prompt has nothing to hand off.
const REQUEST = {
  model: 'sim-model',
  max_tokens: 8,
  messages: [{ role: 'user' as const, content: 'Say something about the sea. '.repeat(12) }],
};

const BETA = 'prompt-caching-2024-07-31';

function sdk(gateway: Gateway, apiKey = 'unused'): Anthropic {
  return new Anthropic({
    apiKey,
    baseURL: gateway.url,
    maxRetries: 0,
    defaultHeaders: { 'anthropic-beta': BETA },
  });
}

function lastBody(worker: SimWorker | undefined): Record<string, unknown> {
  return worker?.stats().lastRequest?.body as Record<string, unknown>;
}

describe('Messages API relayed to HTTP workers', () => {
  it('regular: create and stream reach the worker with the Anthropic headers, and answer', async () => {
    const { worker, gateway } = await regular();
    const client = sdk(gateway);
    const msg = await client.messages.create(REQUEST);
    assert.equal(msg.type, 'message');
    assert.equal(msg.content[0]?.type, 'text');
    const seen = worker.stats().lastRequest;
    assert.equal(seen?.path, '/v1/messages');
    assert.match(String(seen?.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(seen?.headers['anthropic-beta'], BETA);
    assert.equal(seen?.headers['x-api-key'], undefined, 'the client key is not relayed as such');
    assert.deepEqual(lastBody(worker).messages, REQUEST.messages);

    const stream = client.messages.stream(REQUEST);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalMessage();
    assert.equal(types[0], 'message_start');
    assert.equal(types.at(-1), 'message_stop');
    assert.equal(
      final.content[0]?.type === 'text' && final.content[0].text,
      msg.content[0]?.type === 'text' && msg.content[0].text,
    );

    const count = await client.messages.countTokens({
      model: 'sim-model',
      messages: REQUEST.messages,
    });
    assert.equal(count.input_tokens, msg.usage.input_tokens);
    const counted = worker.stats().lastRequest;
    assert.equal(counted?.path, '/v1/messages/count_tokens');
    assert.equal(counted?.headers['anthropic-beta'], BETA);
    assert.match(String(counted?.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
  });

  it('with --api-key the key is taken as Authorization or as x-api-key (Claude Code)', async () => {
    const { worker, gateway } = await regular(['--api-key', 'sekret']);
    // The SDK sends `Authorization: Bearer`.
    const msg = await sdk(gateway, 'sekret').messages.create(REQUEST);
    assert.equal(msg.type, 'message');
    // Claude Code with ANTHROPIC_API_KEY sends `x-api-key`, on both routes.
    const withKey = (path: string, key: string, body: unknown) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': key,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify(body),
      });
    const viaHeader = await withKey('/v1/messages', 'sekret', REQUEST);
    assert.equal(viaHeader.status, 200, await viaHeader.clone().text());
    assert.equal(((await viaHeader.json()) as { type: string }).type, 'message');
    const seen = worker.stats().lastRequest?.headers;
    assert.equal(seen?.['x-api-key'], undefined, 'the header itself is never relayed');
    assert.equal(seen?.authorization, 'Bearer sekret', "the worker gets the gateway's own key");
    const count = await withKey('/v1/messages/count_tokens', 'sekret', {
      model: 'sim-model',
      messages: REQUEST.messages,
    });
    assert.equal(count.status, 200);
    // A wrong key is an Anthropic-shaped 401, whichever header carries it.
    const wrong = await withKey('/v1/messages', 'wrong', REQUEST);
    assert.equal(wrong.status, 401);
    assert.deepEqual(
      ((await wrong.json()) as { error: { type: string } }).error.type,
      'authentication_error',
    );
    await assert.rejects(sdk(gateway, 'wrong').messages.create(REQUEST), (err: unknown) => {
      assert.ok(err instanceof Anthropic.AuthenticationError, String(err));
      assert.equal((err.error as { error: { type: string } }).error.type, 'authentication_error');
      return true;
    });
    await assert.rejects(
      sdk(gateway, 'wrong').messages.countTokens({
        model: 'sim-model',
        messages: REQUEST.messages,
      }),
      Anthropic.AuthenticationError,
    );
    // The OpenAI routes read only Authorization, as SMG.
    const chat = await withKey('/v1/chat/completions', 'sekret', {
      model: 'sim-model',
      messages: REQUEST.messages,
    });
    assert.equal(chat.status, 401);
  });

  it('without --api-key a client x-api-key reaches a keyless worker as its bearer credential', async () => {
    const { worker, gateway } = await regular();
    const res = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'client-own' },
      body: JSON.stringify(REQUEST),
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const seen = worker.stats().lastRequest?.headers;
    assert.equal(seen?.authorization, 'Bearer client-own');
    assert.equal(seen?.['x-api-key'], undefined);
    const count = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'client-own' },
      body: JSON.stringify({ model: REQUEST.model, messages: REQUEST.messages }),
    });
    assert.equal(count.status, 200);
    await count.arrayBuffer();
    const counted = worker.stats().lastRequest;
    assert.equal(counted?.path, '/v1/messages/count_tokens');
    assert.equal(counted?.headers.authorization, 'Bearer client-own', 'count_tokens too');
  });

  it('gateway errors are Anthropic-shaped; a worker error is relayed as the worker sent it', async () => {
    const { worker, gateway } = await regular();
    const client = sdk(gateway);
    await assert.rejects(client.messages.create({ ...REQUEST, max_tokens: 0 }), (err: unknown) => {
      assert.ok(err instanceof Anthropic.BadRequestError, String(err));
      assert.equal(err.headers.get('x-smg-error-code'), 'invalid_body');
      assert.equal((err.error as { error: { type: string } }).error.type, 'invalid_request_error');
      return true;
    });
    await assert.rejects(
      client.messages.create({ ...REQUEST, model: 'nope' }),
      Anthropic.NotFoundError,
    );
    const sent = (): number => worker.stats().requests['/v1/messages'] ?? 0;
    const before = sent();
    await assert.rejects(
      client.messages.create({
        ...REQUEST,
        tools: [],
        tool_choice: { type: 'any' },
      }),
      Anthropic.BadRequestError,
    );
    // A conversation the Messages API refuses never reaches the worker either.
    await assert.rejects(
      client.messages.create({
        ...REQUEST,
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: 'x' }],
          },
        ],
      }),
      Anthropic.BadRequestError,
    );
    const bogus = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...REQUEST,
        messages: [{ role: 'user', content: [{ type: 'bogus' }] }],
      }),
    });
    assert.equal(bogus.status, 400);
    assert.equal(((await bogus.json()) as { type: string }).type, 'error');
    assert.equal(sent(), before, 'refused before any worker');
    await fetch(`${worker.url}/sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errorRate: 1, errorStatus: 500 }),
    });
    await assert.rejects(client.messages.create(REQUEST), (err: unknown) => {
      assert.ok(err instanceof Anthropic.InternalServerError, String(err));
      assert.equal((err.error as { type: string }).type, 'error');
      return true;
    });
  });

  it('a worker that dies mid-stream ends the relayed stream with an Anthropic error event', async () => {
    const { worker, gateway } = await regular();
    await fetch(`${worker.url}/sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dropAfterChunks: 4 }),
    });
    const res = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...REQUEST, stream: true }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const events = parseSseEvents(text);
    const last = events.at(-1);
    assert.equal(last?.event, 'error', text);
    const error = JSON.parse(last?.data ?? '{}') as { type: string; error: { type: string } };
    assert.equal(error.type, 'error');
    assert.equal(error.error.type, 'api_error');
    assert.ok(!text.includes('data: {"error"'), 'no OpenAI-style error event');
    const stream = sdk(gateway).messages.stream({ ...REQUEST });
    await assert.rejects(stream.finalMessage(), Anthropic.APIError);
  });

  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`PD (${runtime}): create and stream are answered by the pair`, async () => {
      const setup = await pd(runtime);
      const client = sdk(setup.gateway);
      const msg = await client.messages.create(REQUEST);
      assert.equal(msg.type, 'message');
      assert.ok(msg.usage.output_tokens > 1, 'the decode answered, not the one-token prefill');
      const final = await client.messages.stream(REQUEST).finalMessage();
      assert.equal(final.stop_reason, msg.stop_reason);
      const [p, d] = [setup.prefills[0], setup.decodes[0]];
      assert.equal(p?.stats().lastRequest?.path, '/v1/messages');
      assert.equal(d?.stats().lastRequest?.path, '/v1/messages');
      assert.equal(d?.stats().lastRequest?.headers['anthropic-beta'], BETA);
      if (runtime === 'sglang') {
        assert.equal(typeof lastBody(p).bootstrap_room, 'number');
        assert.equal(lastBody(d).bootstrap_room, lastBody(p).bootstrap_room);
      } else {
        assert.equal(lastBody(p).max_tokens, 1, 'the vLLM prefill probe');
        assert.equal(lastBody(p).stream, false);
        assert.equal(
          (lastBody(d).kv_transfer_params as { do_remote_prefill?: boolean }).do_remote_prefill,
          true,
        );
        assert.equal(d?.stats().kvTransfers, 2, 'both answers pulled the KV');
      }
    });
  }
});
