// Responses bodies are planned as the chat request an engine builds from them: instructions as a
// leading system message and the input items as the chat history (the same prompt count, content
// key and prefix-cache keys), flat function tools and tool_choice in their chat forms, text.format
// as response_format, max_output_tokens as a cap over the natural length, and a 404 for any
// previous_response_id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GenerationPlan } from '../../src/request-parse.js';
import { parseInference } from '../../src/request-parse.js';
import { parseResponses } from '../../src/responses-api-parse.js';

const defaults = { model: 'sim-model', outputTokens: 16, blockSize: 4 };

function responses(body: unknown): GenerationPlan {
  const r = parseResponses(body, defaults);
  if (!r.ok) assert.fail(r.message);
  return r.plan;
}

function chat(body: unknown): GenerationPlan {
  const r = parseInference('chat', body, defaults);
  if (!r.ok) assert.fail(r.message);
  return r.plan;
}

/** What decides the answer and the engine's work. */
function essence(p: GenerationPlan): unknown {
  const item = p.items[0];
  return {
    tokens: p.promptTokens,
    key: item?.key,
    keys: item?.keys,
    answer: item?.answer?.map((t) => t.text).join(''),
    tools: p.tools,
  };
}

const WEATHER = { type: 'object', properties: { city: { type: 'string' } } };

void describe('parseResponses', () => {
  void it('plans the chat history an engine builds from the input items', () => {
    const r = responses({
      instructions: 'Be terse.',
      input: [
        { role: 'user', content: 'Hello, world!' },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Hi.' },
            { type: 'refusal', refusal: 'No.' },
          ],
        },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'Sunny' },
            { type: 'input_image', image_url: 'x' },
          ],
        },
        {
          type: 'reasoning',
          id: 'rs',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'ok' }],
        },
        { role: 'developer', content: [{ type: 'input_text', text: 'Again' }] },
      ],
    });
    const c = chat({
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Hello, world!' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Hi.' },
            { type: 'text', text: 'No.' },
          ],
        },
        { role: 'assistant', content: null },
        { role: 'tool', content: [{ type: 'text', text: 'Sunny' }] },
        { role: 'assistant', content: null },
        { role: 'developer', content: 'Again' },
      ],
    });
    assert.deepEqual(essence(r), essence(c));
    assert.equal(r.kind, 'chat');
    assert.equal(r.model, 'sim-model', 'no model: the worker’s');
  });

  void it('max_output_tokens is a cap over the natural length', () => {
    const natural = responses({ input: 'x' });
    assert.deepEqual([natural.maxTokens, natural.finishReason], [16, 'stop']);
    const big = responses({ input: 'x', max_output_tokens: 4096 });
    assert.deepEqual([big.maxTokens, big.finishReason], [16, 'stop']);
    const cut = responses({ input: 'x', max_output_tokens: 3 });
    assert.deepEqual([cut.maxTokens, cut.finishReason], [3, 'length']);
  });

  void it('flat function tools and tool_choice become their chat forms', () => {
    const tools = [
      { type: 'function', name: 'get_weather', parameters: WEATHER, strict: true },
      { type: 'web_search_preview' },
    ];
    const chatTools = [
      { type: 'function', function: { name: 'get_weather', parameters: WEATHER } },
    ];
    const cases: [unknown, unknown][] = [
      [undefined, undefined],
      ['required', 'required'],
      ['none', 'none'],
      [
        { type: 'function', name: 'get_weather' },
        { type: 'function', function: { name: 'get_weather' } },
      ],
      [{ type: 'allowed_tools', mode: 'required', tools: [] }, 'required'],
      [{ type: 'web_search_preview' }, 'auto'],
    ];
    for (const [choice, chatChoice] of cases) {
      const r = responses({ input: 'x', tools, tool_choice: choice });
      const c = chat({
        messages: [{ role: 'user', content: 'x' }],
        tools: chatTools,
        tool_choice: chatChoice,
      });
      assert.deepEqual(essence(r), essence(c), JSON.stringify(choice));
    }
    const hostedOnly = responses({ input: 'x', tools: [{ type: 'web_search_preview' }] });
    assert.equal(hostedOnly.tools, undefined, 'hosted tools are not offered to the model');
  });

  void it('text.format is chat’s response_format', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    const r = responses({
      input: 'x',
      text: { format: { type: 'json_schema', name: 'n', schema } },
    });
    const c = chat({
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { schema } },
    });
    assert.deepEqual(essence(r), essence(c));
    assert.equal(
      responses({ input: 'x', text: { format: { type: 'text' } } }).items[0]?.answer,
      undefined,
    );
  });

  void it('carries the stream flag and the PD fields', () => {
    const params = { do_remote_decode: true };
    const r = responses({
      input: 'x',
      stream: true,
      kv_transfer_params: params,
      bootstrap_host: 'h',
    });
    assert.equal(r.stream, true);
    assert.deepEqual(r.kvTransferParams, params);
    assert.deepEqual(r.bootstrap, { host: 'h', port: undefined });
  });

  void it('refuses bad bodies with 400, any previous_response_id with 404', () => {
    const cases: [unknown, RegExp][] = [
      [[], /JSON object/],
      [{}, /^input: Field required$/],
      [{ input: 3 }, /^input: Input should be/],
      [{ input: [] }, /at least one item/],
      [{ input: [{ content: 'x' }] }, /^input\.0\.role: Field required$/],
      [{ input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, /input\.0\.call_id/],
      [{ input: [{ type: 'function_call_output', call_id: 'c' }] }, /input\.0\.output/],
      [{ input: [{ role: 'user', content: [{ text: 'x' }] }] }, /input\.0\.content\.0\.type/],
      [{ input: 'x', tools: [{ type: 'function' }] }, /^tools\.0\.name: Field required$/],
      [{ input: 'x', tool_choice: 3 }, /^tool_choice:/],
      [{ input: 'x', text: { format: { type: 'json_schema' } } }, /text\.format\.name/],
      [{ input: 'x', stream: 'yes' }, /^stream:/],
      [{ input: 'x', metadata: [] }, /^metadata:/],
    ];
    for (const [body, pattern] of cases) {
      const r = parseResponses(body, defaults);
      assert.equal(r.ok, false, JSON.stringify(body));
      if (!r.ok) {
        assert.equal(r.status, undefined, 'a 400');
        assert.match(r.message, pattern);
      }
    }
    const gone = parseResponses({ input: 'x', previous_response_id: 'resp_1' }, defaults);
    assert.deepEqual(gone, {
      ok: false,
      status: 404,
      message: "Response with id 'resp_1' not found.",
    });
  });
});
