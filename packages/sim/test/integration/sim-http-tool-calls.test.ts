// Tool calls over HTTP, shaped as the engines' tool parsers return them: a chat request with
// tools whose <sim-answer> writes Hermes/Qwen `<tool_call>` markup gets `message.tool_calls`
// (streamed as `delta.tool_calls` that add up to the same calls) and `finish_reason:
// "tool_calls"`; tool_choice required or named answers a call built from the schema; none leaves
// the markup as content. Anthropic Messages get `tool_use` blocks. A client's two-step loop ends
// on the text the tool result's directive asks for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimRuntime, SimWorker } from '../../src/index.js';
import { SIM_RUNTIMES } from '../../src/options.js';
import { startSimWorker } from '../../src/index.js';
import type { OpenAiChoice } from '../helpers/answers.js';
import { post, streamedChoices, streamedMessage, wholeChoices } from '../helpers/answers.js';
import { instantWorkers } from '../helpers/instant-workers.js';
import { schemaErrors } from '../helpers/schema-check.js';

const RUNTIMES = SIM_RUNTIMES;
const WEATHER_PARAMS = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1 },
  },
  required: ['city', 'unit'],
};
const TOOLS = [
  { type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMS } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
];
const call = (name: string, args: unknown): string =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const PARIS = { city: 'Paris', unit: 'celsius' };
const TWO_CALLS = `I will check both.\n${call('get_weather', PARIS)}\n${call('get_time', { zone: 'CET' })}`;
const asked = (answer: string): string => `Weather? <sim-answer>${answer}</sim-answer>`;

const worker = instantWorkers();
const chatUrl = (runtime: SimRuntime = 'vllm'): string =>
  `${worker(runtime).url}/v1/chat/completions`;

/** The first choice of the whole answer and of the streamed one. */
async function both(
  url: string,
  body: Record<string, unknown>,
): Promise<[OpenAiChoice, OpenAiChoice]> {
  const whole = await post(url, body);
  assert.equal(whole.status, 200, whole.text);
  const [w] = wholeChoices(whole.text);
  const [s] = streamedChoices((await post(url, { ...body, stream: true })).text);
  assert.ok(w && s);
  return [w, s];
}

/** Name and parsed arguments: ids differ between two requests. */
const calls = (c: OpenAiChoice | undefined) =>
  c?.toolCalls?.map((t) => ({ name: t.name, args: JSON.parse(t.arguments) as unknown }));

void describe('tool calls over HTTP', () => {
  void it('markup in the answer becomes tool_calls, whole and streamed alike', async () => {
    for (const runtime of RUNTIMES) {
      const body = { messages: [{ role: 'user', content: asked(TWO_CALLS) }], tools: TOOLS };
      const [whole, streamed] = await both(chatUrl(runtime), body);
      for (const c of [whole, streamed]) {
        assert.equal(c.content, 'I will check both.', runtime);
        assert.equal(c.finish, 'tool_calls');
        assert.deepEqual(calls(c), [
          { name: 'get_weather', args: PARIS },
          { name: 'get_time', args: { zone: 'CET' } },
        ]);
        for (const t of c.toolCalls ?? []) {
          assert.match(t.id, /^call_[0-9a-f]{24}$/);
          assert.equal(t.type, 'function');
        }
      }
      // The engines re-serialize arguments as Python's json.dumps does.
      assert.equal(whole.toolCalls?.[0]?.arguments, '{"city": "Paris", "unit": "celsius"}');
      assert.equal(streamed.toolCalls?.[0]?.arguments, whole.toolCalls?.[0]?.arguments);
    }
  });

  void it('arguments stream in pieces, after a first delta with id, type and name', async () => {
    const body = {
      messages: [{ role: 'user', content: asked(call('get_weather', PARIS)) }],
      tools: TOOLS,
    };
    const r = await post(chatUrl(), { ...body, stream: true });
    const deltas = r.text
      .split('\n\n')
      .filter((e) => e.includes('"delta":{"tool_calls"'))
      .map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { tool_calls: unknown[] } }[] })
      .map((chunk) => chunk.choices[0]?.delta.tool_calls[0] as Record<string, unknown>);
    assert.ok(deltas.length > 5, `${deltas.length} tool-call deltas`);
    assert.deepEqual(Object.keys(deltas[0] ?? {}), ['index', 'id', 'type', 'function']);
    assert.deepEqual(deltas[0]?.['function'], { name: 'get_weather', arguments: '' });
    const [c] = streamedChoices(r.text);
    assert.equal(c?.content, null, 'only whitespace around the markup: no content');
  });

  void it('whitespace-only content is null; n choices get their own call ids', async () => {
    const body = {
      messages: [{ role: 'user', content: asked(`\n${call('get_time', {})}\n`) }],
      tools: TOOLS,
      n: 2,
    };
    const r = JSON.parse((await post(chatUrl(), body)).text) as {
      choices: { message: { content: unknown; tool_calls: { id: string }[] } }[];
    };
    assert.deepEqual(
      r.choices.map((c) => c.message.content),
      [null, null],
    );
    const ids = r.choices.map((c) => c.message.tool_calls[0]?.id);
    assert.notEqual(ids[0], ids[1]);
  });

  void it('tool_choice required answers a call of the first tool, valid for its schema', async () => {
    for (const runtime of RUNTIMES) {
      // A plain directive does not stop a constrained engine from calling.
      const body = {
        messages: [{ role: 'user', content: asked('Just text.') }],
        tools: TOOLS,
        tool_choice: 'required',
      };
      for (const c of await both(chatUrl(runtime), body)) {
        assert.deepEqual([c.content, c.finish, c.toolCalls?.length], [null, 'tool_calls', 1]);
        assert.equal(c.toolCalls?.[0]?.name, 'get_weather');
        const args = JSON.parse(c.toolCalls?.[0]?.arguments ?? '') as unknown;
        assert.deepEqual(schemaErrors(args, WEATHER_PARAMS), []);
      }
    }
  });

  void it('a named tool_choice answers that function; scripted markup still wins', async () => {
    const named = { type: 'function', function: { name: 'get_time' } };
    const body = {
      messages: [{ role: 'user', content: 'What time is it?' }],
      tools: TOOLS,
      tool_choice: named,
    };
    for (const c of await both(chatUrl('sglang'), body)) {
      assert.deepEqual(calls(c), [{ name: 'get_time', args: {} }]);
      assert.equal(c.finish, 'tool_calls');
    }
    const scripted = {
      ...body,
      messages: [{ role: 'user', content: asked(call('get_time', { zone: 'UTC' })) }],
    };
    const [w] = await both(chatUrl('sglang'), scripted);
    assert.deepEqual(calls(w), [{ name: 'get_time', args: { zone: 'UTC' } }]);
  });

  void it('tool_choice none, or no tools, leaves the markup as content', async () => {
    const messages = [{ role: 'user', content: asked(TWO_CALLS) }];
    for (const body of [{ messages, tools: TOOLS, tool_choice: 'none' }, { messages }]) {
      for (const c of await both(chatUrl('tokenspeed'), body)) {
        assert.deepEqual([c.content, c.finish, c.toolCalls], [TWO_CALLS, 'stop', undefined]);
      }
    }
  });

  void it('markup cut by max_tokens, or not valid JSON, stays content', async () => {
    const cut = {
      messages: [{ role: 'user', content: asked(TWO_CALLS) }],
      tools: TOOLS,
      max_tokens: 12,
    };
    for (const c of await both(chatUrl(), cut)) {
      assert.equal(c.finish, 'length');
      assert.equal(c.toolCalls, undefined);
      assert.ok(c.content?.startsWith('I will check both.\n<tool_call>'), c.content ?? '');
    }
    const broken = `<tool_call>\n{"name": "get_time", "arguments": {</tool_call>`;
    const bad = { messages: [{ role: 'user', content: asked(broken) }], tools: TOOLS };
    const [w] = await both(chatUrl(), bad);
    assert.deepEqual([w?.content, w?.finish], [broken, 'stop']);
  });

  void it('a two-step exchange: the call, then the tool result’s directive as text', async () => {
    const url = chatUrl('sglang');
    const first = [{ role: 'user', content: asked(call('get_weather', PARIS)) }];
    const [c1] = wholeChoices((await post(url, { messages: first, tools: TOOLS })).text);
    const tc = c1?.toolCalls?.[0];
    assert.ok(tc);
    const second = [
      ...first,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: tc.id, type: 'function', function: { name: tc.name, arguments: tc.arguments } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: tc.id,
        content: '{"temp": 21} <sim-answer>It is 21 °C and sunny in Paris.</sim-answer>',
      },
    ];
    for (const c of await both(url, { messages: second, tools: TOOLS })) {
      assert.deepEqual(
        [c.content, c.finish, c.toolCalls],
        ['It is 21 °C and sunny in Paris.', 'stop', undefined],
      );
    }
  });

  void it('refuses a named function that is not in tools', async () => {
    const r = await post(chatUrl(), {
      messages: [{ role: 'user', content: 'x' }],
      tools: TOOLS,
      tool_choice: { type: 'function', function: { name: 'nope' } },
    });
    assert.equal(r.status, 400);
    assert.match(r.text, /'nope', which is not in 'tools'/);
  });
});

void describe('tool use over Anthropic Messages', () => {
  let w: SimWorker;
  const TOOL = { name: 'get_weather', description: 'Weather', input_schema: WEATHER_PARAMS };
  const message = (content: unknown, extra: Record<string, unknown> = {}) => ({
    model: 'm',
    max_tokens: 500,
    messages: [{ role: 'user', content }],
    tools: [TOOL],
    ...extra,
  });
  before(async () => {
    w = await startSimWorker({ runtime: 'vllm', ttftMs: 0, itlMs: 0 });
  });
  after(async () => {
    assert.equal(w.stats().running, 0);
    await w.close();
  });

  async function whole(body: unknown) {
    const r = await post(`${w.url}/v1/messages`, body);
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text) as ReturnType<typeof streamedMessage>;
  }

  void it('markup becomes tool_use blocks after the text, stop_reason tool_use', async () => {
    const body = message(asked(`Checking.\n${call('get_weather', PARIS)}`));
    const m = await whole(body);
    const s = streamedMessage((await post(`${w.url}/v1/messages`, { ...body, stream: true })).text);
    for (const x of [m, s]) {
      assert.equal(x.stop_reason, 'tool_use');
      assert.equal(x.content.length, 2);
      assert.deepEqual(x.content[0], { type: 'text', text: 'Checking.' });
      const use = x.content[1];
      assert.equal(use?.type, 'tool_use');
      if (use?.type !== 'tool_use') return;
      assert.match(use.id, /^toolu_[0-9a-f]{24}$/);
      assert.deepEqual([use.name, use.input], ['get_weather', PARIS]);
    }
  });

  void it('tool_choice any answers a schema-valid call; a tool_result directive answers text', async () => {
    const forced = await whole(message('Weather?', { tool_choice: { type: 'any' } }));
    assert.equal(forced.stop_reason, 'tool_use');
    assert.deepEqual(
      forced.content.map((b) => b.type),
      ['tool_use'],
    );
    const use = forced.content[0];
    assert.ok(use?.type === 'tool_use');
    assert.deepEqual(schemaErrors(use.input, WEATHER_PARAMS), []);
    const next = await whole({
      ...message('Weather?'),
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: use.id, name: use.name, input: use.input }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: use.id,
              content: '<sim-answer>Sunny.</sim-answer>',
            },
          ],
        },
      ],
    });
    assert.deepEqual(
      [next.content, next.stop_reason],
      [[{ type: 'text', text: 'Sunny.' }], 'end_turn'],
    );
  });
});
