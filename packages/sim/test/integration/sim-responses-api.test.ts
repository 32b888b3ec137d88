// The OpenAI Responses API on the simulator's HTTP surface (POST /v1/responses), as vLLM and SGLang
// serve it: the response object and its echoed fields, the named event stream with its sequence
// numbers, status `incomplete` on the cap, function calls whole and streamed, input items replayed
// as a chat history, text.format, OpenAI-shaped refusals, the 404 of an unknown
// previous_response_id, what /sim/stats records, and the same answer on every runtime.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimStats, SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { SIM_RUNTIMES } from '../../src/options.js';
import type { ResponseObject } from '../helpers/responses-api.js';
import { item, postResponses, streamedResponse, wholeResponse } from '../helpers/responses-api.js';

type Json = Record<string, unknown>;

const INSTRUCTIONS = 'You answer questions about railway yards.';
const USER = 'Which track does the freight train take tonight?';
const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius'] } },
  required: ['city', 'unit'],
};
const TOOLS = [
  { type: 'function', name: 'get_weather', parameters: WEATHER },
  { type: 'function', name: 'get_time', parameters: { type: 'object' } },
  { type: 'web_search_preview' },
];
const call = (name: string, args: unknown): string =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const PARIS = { city: 'Paris', unit: 'celsius' };
const TWO_CALLS = `I will check both.\n${call('get_weather', PARIS)}\n${call('get_time', {})}`;
const asked = (answer: string): string => `Weather? <sim-answer>${answer}</sim-answer>`;

let w: SimWorker;

const request = (extra: Json = {}): Json => ({
  model: 'sim-model',
  instructions: INSTRUCTIONS,
  input: USER,
  max_output_tokens: 6,
  ...extra,
});

async function chat(body: Json): Promise<{ text: string; promptTokens: number }> {
  const res = await fetch(`${w.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const c = (await res.json()) as {
    choices: { message: { content: string } }[];
    usage: { prompt_tokens: number };
  };
  return { text: c.choices[0]?.message.content ?? '', promptTokens: c.usage.prompt_tokens };
}

/** The response without what differs between two requests (ids, time, item and call ids). */
function stable(r: ResponseObject): Json {
  const { id: _id, created_at: _at, output, ...rest } = r;
  const ids = (i: Json): Json => ({
    ...i,
    id: '',
    ...(i['call_id'] === undefined ? {} : { call_id: '' }),
  });
  return { ...rest, output: output.map((o) => ids({ ...item(o) })) };
}

void describe('OpenAI Responses', () => {
  before(async () => {
    w = await startSimWorker({ ttftMs: 0, itlMs: 0, seed: 7 });
  });
  after(async () => {
    assert.equal(w.stats().running, 0);
    await w.close();
  });

  void it('answers the chat route’s words in a message item, incomplete on the cap', async () => {
    const r = await wholeResponse(w.url, request({ metadata: { run: 'a' } }));
    assert.match(r.id, /^resp_/);
    assert.deepEqual(
      [r.object, r.status, r.model, r.incomplete_details],
      ['response', 'incomplete', 'sim-model', { reason: 'max_output_tokens' }],
    );
    assert.equal(r['error'], null);
    assert.ok(Number.isInteger(r.created_at));
    assert.equal(r.output.length, 1);
    const m = item(r.output[0] ?? {});
    assert.match(m.id, /^msg_[0-9a-f]{24}$/);
    assert.deepEqual(
      [m.type, m.status, (r.output[0] ?? {})['role']],
      ['message', 'completed', 'assistant'],
    );
    const c = await chat({
      model: 'sim-model',
      max_tokens: 6,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: USER },
      ],
    });
    assert.equal(m.text, c.text, 'the seeded words of the equivalent chat request');
    assert.deepEqual(r.usage, {
      input_tokens: c.promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 6,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: c.promptTokens + 6,
    });
    // The request fields come back, with vLLM's defaults for the others.
    const echo = Object.fromEntries(
      [
        'instructions',
        'metadata',
        'max_output_tokens',
        'tool_choice',
        'tools',
        'text',
        'temperature',
      ].map((k) => [k, r[k]]),
    );
    assert.deepEqual(echo, {
      instructions: INSTRUCTIONS,
      metadata: { run: 'a' },
      max_output_tokens: 6,
      tool_choice: 'auto',
      tools: [],
      text: { format: { type: 'text' } },
      temperature: 1,
    });
    assert.equal(r['previous_response_id'], null);
  });

  void it('completes when the answer ends before the cap, or without one', async () => {
    for (const cap of [4096, undefined]) {
      const r = await wholeResponse(w.url, request({ max_output_tokens: cap }));
      assert.deepEqual([r.status, r.incomplete_details], ['completed', null], String(cap));
      assert.equal(r.usage?.output_tokens, 16, '--output-tokens');
    }
  });

  void it('streams the event sequence, numbered, adding up to the whole response', async () => {
    const whole = await wholeResponse(w.url, request());
    const r = await postResponses(w.url, request({ stream: true }));
    assert.equal(r.status, 200);
    assert.equal(r.type, 'text/event-stream');
    const s = streamedResponse(r.text);
    assert.deepEqual(s.names, [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(6).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const created = JSON.parse(r.text.split('\n')[1]?.slice(6) ?? '{}') as { response: Json };
    assert.deepEqual(
      [created.response['status'], created.response['output'], created.response['usage']],
      ['in_progress', [], null],
    );
    assert.equal(created.response['id'], s.completed.id);
    assert.deepEqual(stable(s.completed), stable(whole), 'the same response as a whole one');
  });

  void it('answers markup as function_call items, whole and streamed alike', async () => {
    const body = request({ input: asked(TWO_CALLS), tools: TOOLS, max_output_tokens: undefined });
    const whole = await wholeResponse(w.url, body);
    const s = streamedResponse((await postResponses(w.url, { ...body, stream: true })).text);
    for (const r of [whole, s.completed]) {
      assert.equal(r.status, 'completed', 'vLLM: a turn of calls is completed');
      const items = r.output.map(item);
      assert.deepEqual(
        items.map((i) => [i.type, i.text ?? i.name, i.arguments]),
        [
          ['message', 'I will check both.', undefined],
          ['function_call', 'get_weather', '{"city": "Paris", "unit": "celsius"}'],
          ['function_call', 'get_time', '{}'],
        ],
      );
      for (const i of items.slice(1)) {
        assert.match(i.id, /^fc_[0-9a-f]{24}$/);
        assert.match(i.call_id ?? '', /^call_[0-9a-f]{24}$/);
        assert.equal(i.status, 'completed');
      }
    }
    assert.deepEqual(stable(s.completed), stable(whole));
    assert.deepEqual(s.completed.tools, TOOLS, 'tools are echoed as sent');
    const calls = s.names.filter((n) => n.startsWith('response.function_call_arguments'));
    assert.ok(calls.filter((n) => n.endsWith('.delta')).length > 2, 'arguments arrive in pieces');
    assert.equal(calls.filter((n) => n.endsWith('.done')).length, 2);
  });

  void it('a forced call is the only item; tool_choice none leaves markup as text', async () => {
    const forced = await wholeResponse(
      w.url,
      request({
        tools: TOOLS,
        tool_choice: { type: 'function', name: 'get_weather' },
        max_output_tokens: undefined,
      }),
    );
    const [only, ...rest] = forced.output.map(item);
    assert.deepEqual(rest, []);
    assert.equal(only?.name, 'get_weather');
    assert.deepEqual(Object.keys(JSON.parse(only?.arguments ?? '{}') as Json), ['city', 'unit']);
    const plain = await wholeResponse(
      w.url,
      request({
        input: asked(TWO_CALLS),
        tools: TOOLS,
        tool_choice: 'none',
        max_output_tokens: 200,
      }),
    );
    assert.deepEqual(
      plain.output.map((o) => item(o).text),
      [TWO_CALLS],
    );
  });

  void it('replays input items as a chat history; the tool output’s directive answers', async () => {
    const input = [
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: asked(call('get_time', {})) }],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Ask the clock.' }],
      },
      { type: 'function_call', call_id: 'call_1', name: 'get_time', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: '12:00 <sim-answer>Noon.</sim-answer>',
      },
    ];
    const r = await wholeResponse(w.url, { model: 'm', input, tools: TOOLS });
    assert.deepEqual(
      r.output.map((o) => item(o).text),
      ['Noon.'],
    );
    const c = await chat({
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'text', text: asked(call('get_time', {})) }] },
        { role: 'assistant', content: null, reasoning_content: 'Ask the clock.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '12:00 <sim-answer>Noon.</sim-answer>' },
      ],
    });
    assert.equal(r.usage?.input_tokens, c.promptTokens, 'the tokens of the equivalent chat');
  });

  void it('text.format json_schema answers a value of the schema', async () => {
    const format = { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true };
    const r = await wholeResponse(w.url, request({ text: { format }, max_output_tokens: 100 }));
    const value = JSON.parse(item(r.output[0] ?? {}).text ?? '') as Json;
    assert.deepEqual(Object.keys(value), ['city', 'unit']);
    assert.deepEqual(r['text'], { format });
  });

  void it('refuses bad requests in OpenAI’s shape; an unknown previous response is 404', async () => {
    const cases: [unknown, number, string, RegExp][] = [
      [{ model: 'm' }, 400, 'invalid_request_error', /^input: Field required$/],
      [
        { input: [{ type: 'item_reference', id: 'x' }] },
        400,
        'invalid_request_error',
        /item_reference/,
      ],
      [{ input: 'x', max_output_tokens: 0 }, 400, 'invalid_request_error', /max_output_tokens/],
      [{ input: 'x', tool_choice: 'required' }, 400, 'invalid_request_error', /needs 'tools'/],
      [
        { input: 'x', text: { format: { type: 'yaml' } } },
        400,
        'invalid_request_error',
        /text\.format\.type/,
      ],
      [
        { input: 'x', previous_response_id: 7 },
        400,
        'invalid_request_error',
        /previous_response_id/,
      ],
      ['{"input":', 400, 'invalid_json', /not valid JSON/],
      [
        { input: 'x', previous_response_id: 'resp_gone' },
        404,
        'invalid_request_error',
        /^Response with id 'resp_gone' not found\.$/,
      ],
    ];
    const base = w.stats();
    for (const [body, status, type, pattern] of cases) {
      const r = await postResponses(w.url, body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.type, 'application/json');
      const e = JSON.parse(r.text) as { error: { type: string; message: string; code: number } };
      assert.deepEqual([e.error.type, e.error.code], [type, status]);
      assert.match(e.error.message, pattern);
    }
    const s = w.stats();
    assert.deepEqual([s.completed, s.failed, s.running], [base.completed, base.failed, 0]);
  });

  void it('records the request and its headers in /sim/stats', async () => {
    const before = w.stats().requests['/v1/responses'] ?? 0;
    await postResponses(w.url, request({ store: true, metadata: { k: 'v' } }), {
      'x-trace': 'abc',
    });
    const s = (await (await fetch(`${w.url}/sim/stats`)).json()) as SimStats;
    assert.equal(s.requests['/v1/responses'], before + 1);
    assert.equal(s.lastRequest?.path, '/v1/responses');
    assert.equal(s.lastRequest?.headers['x-trace'], 'abc');
    assert.deepEqual((s.lastRequest?.body as Json)['metadata'], { k: 'v' });
    assert.equal((s.lastRequest?.body as Json)['store'], true);
  });

  void it('is served by every runtime, with the same words', async () => {
    const words = new Set<string>();
    for (const runtime of SIM_RUNTIMES) {
      const rw = await startSimWorker({ runtime, ttftMs: 0, itlMs: 0, seed: 7 });
      try {
        const r = await wholeResponse(rw.url, request());
        assert.equal(r.usage?.output_tokens, 6, runtime);
        words.add(item(r.output[0] ?? {}).text ?? '');
      } finally {
        await rw.close();
      }
    }
    assert.equal(words.size, 1);
  });
});
