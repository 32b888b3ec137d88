// The Messages route in gRPC mode when things go wrong, and over a PD pair: bad input (wrong block
// types, a tool_result with no tool_use before it, images, oversized bodies, bad tool_choice)
// gets a 400/413 in Anthropic's shape and never reaches an engine; an engine that fails mid-stream
// ends the stream with one Anthropic `error` event and is sent Abort; a client that leaves aborts
// the engine request; `count_tokens` counts locally; PD pairs (SGLang, vLLM) answer Messages too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { SimWorker } from '@switchyard/sim';
import { parseSseEvents } from '@switchyard/sim/testing';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { generateRequests, startQwenFleet, type QwenFleet } from '../../helpers/grpc.js';
import { postJson } from '../../helpers/http.js';

let fleet: QwenFleet;
let engine: SimWorker;
let gateway: Gateway;

before(async () => {
  fleet = await startQwenFleet(['--max-payload-size', '65536']);
  ({ engine, gateway } = fleet);
});

after(async () => {
  await fleet.close();
});

const user = (content: unknown) => ({
  model: 'qwen3',
  max_tokens: 16,
  messages: [{ role: 'user', content }],
});

/** POSTs a body and checks the Anthropic error shape, its type, our code, and that no engine saw it. */
async function refused(body: unknown, status: number, type: string, code: string): Promise<string> {
  const before = generateRequests(engine).length;
  const res = await postJson(`${gateway.url}/v1/messages`, body);
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.equal(res.headers.get('x-smg-error-code'), code);
  const json = JSON.parse(text) as { type: string; error: { type: string; message: string } };
  assert.equal(json.type, 'error');
  assert.equal(json.error.type, type);
  assert.equal(generateRequests(engine).length, before, 'never reached the engine');
  return json.error.message;
}

describe('Messages in gRPC mode: bad input never reaches an engine', () => {
  it('wrong block types, missing fields and unknown roles are 400 invalid_request_error', async () => {
    assert.match(
      await refused(
        user([{ type: 'tool_use', id: 'x', name: 'f', input: {} }]),
        400,
        'invalid_request_error',
        'invalid_request_parameters',
      ),
      /messages\[0\]\.content\[0\].*tool_use/,
    );
    // Unknown to the Messages API at all: refused at the edge, in every mode.
    await refused(user([{ type: 'bogus' }]), 400, 'invalid_request_error', 'invalid_body');
    await refused(
      user([{ type: 'text' }]),
      400,
      'invalid_request_error',
      'invalid_request_parameters',
    );
    await refused(user([{ text: 'no type' }]), 400, 'invalid_request_error', 'invalid_body');
    await refused(
      { ...user('hi'), max_tokens: undefined },
      400,
      'invalid_request_error',
      'invalid_body',
    );
    await refused({ ...user('hi'), messages: [] }, 400, 'invalid_request_error', 'invalid_body');
    await refused(
      { ...user('hi'), messages: [{ role: 'tool', content: 'x' }] },
      400,
      'invalid_request_error',
      'invalid_body',
    );
    await refused(
      { ...user('hi'), thinking: { type: 'sometimes' } },
      400,
      'invalid_request_error',
      'invalid_request_parameters',
    );
  });

  it('a tool_result must answer a tool_use of the assistant turn before it', async () => {
    const orphan = user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }]);
    assert.match(await refused(orphan, 400, 'invalid_request_error', 'invalid_body'), /toolu_1/);
    const stale = {
      model: 'qwen3',
      max_tokens: 16,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
        { role: 'assistant', content: 'done' },
        // Answers a call two turns back, not the turn before it.
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'again' }],
        },
      ],
    };
    await refused(stale, 400, 'invalid_request_error', 'invalid_body');
  });

  it('images and documents are 400 multimodal_not_supported, in a turn or a tool result', async () => {
    const image = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    };
    await refused(user([image]), 400, 'invalid_request_error', 'multimodal_not_supported');
    await refused(
      user([{ type: 'document', source: { type: 'text', data: 'x' } }]),
      400,
      'invalid_request_error',
      'multimodal_not_supported',
    );
    const inResult = {
      model: 'qwen3',
      max_tokens: 16,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [image] }],
        },
      ],
    };
    await refused(inResult, 400, 'invalid_request_error', 'multimodal_not_supported');
  });

  it('tool_choice without tools or naming an unknown tool is refused', async () => {
    await refused(
      { ...user('hi'), tool_choice: { type: 'any' } },
      400,
      'invalid_request_error',
      'invalid_body',
    );
    await refused(
      {
        ...user('hi'),
        tools: [{ name: 'f', input_schema: { type: 'object' } }],
        tool_choice: { type: 'tool', name: 'g' },
      },
      400,
      'invalid_request_error',
      'invalid_body',
    );
  });

  it('an oversized body is 413 request_too_large', async () => {
    await refused(user('x'.repeat(70_000)), 413, 'request_too_large', 'payload_too_large');
  });
});

describe('Messages in gRPC mode: engine faults and departures', () => {
  it('an engine failing mid-stream ends the stream with one error event, and is sent Abort', async () => {
    engine.setFaults({ dropAfterChunks: 2, grpcMessage: 'engine fell over' });
    try {
      const from = generateRequests(engine).length;
      const res = await postJson(`${gateway.url}/v1/messages`, {
        ...user('Please answer. <sim-answer>one two three four five six</sim-answer>'),
        stream: true,
      });
      assert.equal(res.status, 200);
      const events = parseSseEvents(await res.text());
      assert.equal(events[0]?.event, 'message_start');
      assert.equal(events.filter((e) => e.event === 'error').length, 1);
      const last = events.at(-1);
      assert.equal(last?.event, 'error');
      const error = JSON.parse(last?.data ?? '{}') as { error: { type: string; message: string } };
      assert.equal(error.error.type, 'api_error');
      assert.match(error.error.message, /engine fell over/);
      assert.ok(!events.some((e) => e.event === 'message_stop'));
      const id = (generateRequests(engine)[from] as { request_id: string }).request_id;
      await waitFor(
        () => (engine.grpc?.aborts ?? []).some((a) => a.requestIds.includes(id)),
        'Abort sent',
      );
    } finally {
      engine.setFaults({});
    }
  });

  it('a client that leaves a stream aborts the engine request', async () => {
    const slow = new AbortController();
    const from = generateRequests(engine).length;
    const res = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...user(`go <sim-answer>${'word '.repeat(400)}</sim-answer>`),
        max_tokens: 1000,
        stream: true,
      }),
      signal: slow.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    slow.abort();
    const id = (generateRequests(engine)[from] as { request_id: string }).request_id;
    await waitFor(
      () => (engine.grpc?.aborts ?? []).some((a) => a.requestIds.includes(id)),
      'Abort sent',
    );
  });

  it('count_tokens counts what create would send, without an engine', async () => {
    const client = new Anthropic({ apiKey: 'x', baseURL: gateway.url, maxRetries: 0 });
    const body = {
      model: 'qwen3',
      system: 'S',
      messages: [{ role: 'user' as const, content: 'Count me.' }],
    };
    const before = generateRequests(engine).length;
    const { input_tokens } = await client.messages.countTokens(body);
    assert.equal(generateRequests(engine).length, before);
    await client.messages.create({ ...body, max_tokens: 4 });
    const sent = generateRequests(engine).at(-1)?.tokenized as { input_ids: number[] };
    assert.equal(input_tokens, sent.input_ids.length);
    await assert.rejects(
      client.messages.countTokens({ ...body, model: 'nope' }),
      Anthropic.NotFoundError,
    );
  });
});

describe('Messages over gRPC PD pairs', () => {
  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`${runtime}: create and stream are answered by the decode engine`, async () => {
      const pd = await startGrpcPdSetup({ runtime });
      try {
        const client = new Anthropic({ apiKey: 'x', baseURL: pd.gateway.url, maxRetries: 0 });
        const body = {
          model: 'qwen3',
          max_tokens: 32,
          messages: [
            { role: 'user' as const, content: 'Hi <sim-answer>Paired answer.</sim-answer>' },
          ],
        };
        const msg = await client.messages.create(body);
        assert.deepEqual(msg.content, [{ type: 'text', text: 'Paired answer.' }]);
        const final = await client.messages.stream(body).finalMessage();
        assert.deepEqual(final.content, msg.content);
        assert.equal(final.stop_reason, 'end_turn');
        for (const w of [...pd.prefills, ...pd.decodes])
          assert.ok(generateRequests(w).length >= 2, 'both legs ran for each request');
        await assertAllReleased(pd.gateway);
      } finally {
        await pd.close();
      }
    });
  }
});
