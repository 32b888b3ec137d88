// What fixes an HTTP request's answer, read from its body when it is planned: a structured-output
// constraint over a call forced by tool_choice over the prompt's `<sim-answer>` directive (one
// with tool-call markup over a forced call), each output's length and finish from its own answer,
// and the bodies refused with 400.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GenerationPlan, InferenceKind, PlanDefaults } from '../../src/request-parse.js';
import { capOutput, parseInference } from '../../src/request-parse.js';
import { answerTokens } from '../../src/text.js';

const defaults: PlanDefaults = { model: 'sim-model', outputTokens: 16, runtime: 'sglang' };
const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const TIME = { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } };
const CALL = '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';

function plan(kind: InferenceKind, body: unknown, d: PlanDefaults = defaults): GenerationPlan {
  const r = parseInference(kind, body, d);
  if (!r.ok) assert.fail(r.message);
  return r.plan;
}

function rejects(kind: InferenceKind, body: unknown, pattern: RegExp, d = defaults): void {
  const r = parseInference(kind, body, d);
  assert.equal(r.ok, false, 'refused');
  if (!r.ok) assert.match(r.message, pattern);
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content }],
  ...extra,
});

/** The fixed answer text of item i, undefined for canned words. */
function answerOf(p: GenerationPlan, i = 0): string | undefined {
  return p.items[i]?.answer?.map((t) => t.text).join('');
}

void describe('HTTP answer rules', () => {
  void it('answer tokens concatenate back to the text; empty is one empty token', () => {
    for (const text of ['Hello, world!\n', '  a\tb\n\n', '{"a": [1, 2]}', 'é 𝄞 x', '']) {
      assert.equal(
        answerTokens(text)
          .map((t) => t.text)
          .join(''),
        text,
      );
    }
    assert.deepEqual(
      answerTokens('Hello, world!').map((t) => t.text),
      ['Hello', ',', ' world', '!'],
    );
    assert.equal(answerTokens('').length, 1);
  });

  void it('the last directive of the prompt is the answer: its tokens, ending by itself', () => {
    const p = plan('chat', {
      messages: [
        { role: 'user', content: 'x <sim-answer>first</sim-answer>' },
        { role: 'assistant', content: 'first' },
        { role: 'tool', content: '<sim-answer>The sky is clear.</sim-answer>' },
      ],
    });
    assert.equal(answerOf(p), 'The sky is clear.');
    assert.deepEqual([p.maxTokens, p.finishReason], [5, 'stop']);
    const eos = plan('chat', chat('<sim-answer>a b c</sim-answer>'), { ...defaults, eosLength: 1 });
    assert.deepEqual([eos.maxTokens, eos.finishReason], [3, 'stop'], 'eos-length does not apply');
  });

  void it('max_tokens cuts a directive (length); ignore_eos runs to the cap', () => {
    const cut = plan('chat', chat('<sim-answer>a b c d</sim-answer>', { max_tokens: 2 }));
    assert.deepEqual([cut.maxTokens, cut.finishReason], [2, 'length']);
    // A cap of exactly its length leaves no room for the EOS: cut, as on an engine.
    const exact = plan('chat', chat('<sim-answer>a b c d</sim-answer>', { max_tokens: 4 }));
    assert.deepEqual([exact.maxTokens, exact.finishReason], [4, 'length']);
    const room = plan('chat', chat('<sim-answer>a b c d</sim-answer>', { max_tokens: 5 }));
    assert.deepEqual([room.maxTokens, room.finishReason], [4, 'stop']);
    const on = plan(
      'chat',
      chat('<sim-answer>a b</sim-answer>', { max_tokens: 5, ignore_eos: true }),
    );
    assert.deepEqual([on.maxTokens, on.finishReason], [5, 'length']);
  });

  void it('completions and /generate read each prompt of a batch; the longest sets the steps', () => {
    const p = plan('completion', {
      prompt: ['<sim-answer>one two three</sim-answer>', 'no directive', [5, 6, 7]],
      max_tokens: 10,
    });
    assert.deepEqual(
      p.items.map((it) => [answerOf({ ...p, items: [it] }), it.length, it.finish]),
      [
        ['one two three', 3, 'stop'],
        [undefined, 10, 'length'],
        [undefined, 10, 'length'],
      ],
    );
    assert.deepEqual([p.maxTokens, p.finishReason], [10, 'length']);
    const g = plan('generate', { text: 'q <sim-answer>ok</sim-answer>' });
    assert.equal(answerOf(g), 'ok');
    // A one-token answer on a one-token prefill never reached its EOS either.
    const cut = capOutput(g, 1);
    assert.deepEqual([cut.maxTokens, cut.finishReason], [1, 'length']);
    const canned = capOutput(plan('generate', { text: 'x' }, { ...defaults, eosLength: 1 }), 1);
    assert.deepEqual(
      [canned.maxTokens, canned.finishReason],
      [1, 'stop'],
      'canned words unchanged',
    );
    const long = capOutput(plan('generate', { text: '<sim-answer>a b c</sim-answer>' }), 1);
    assert.deepEqual([long.maxTokens, long.finishReason], [1, 'length']);
  });

  void it('a constraint beats the directive: the schema’s JSON on every route', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 3 } } };
    const rf = { response_format: { type: 'json_schema', json_schema: { name: 's', schema } } };
    assert.equal(answerOf(plan('chat', chat('<sim-answer>no</sim-answer>', rf))), '{"n":3}');
    assert.equal(answerOf(plan('completion', { prompt: 'p', ...rf })), '{"n":3}');
    const json = { response_format: { type: 'json_object' } };
    assert.equal(answerOf(plan('chat', chat('x', json))), '{}');
    assert.equal(
      answerOf(plan('chat', chat('x', { response_format: { type: 'text' } }))),
      undefined,
    );
    const sp = { sampling_params: { json_schema: JSON.stringify(schema), regex: 'a+' } };
    assert.equal(answerOf(plan('generate', { text: 'x', ...sp })), '{"n":3}');
  });

  void it('vLLM reads guided_json, guided_choice and structured_outputs; SGLang does not', () => {
    const vllm = { ...defaults, runtime: 'vllm' } as const;
    const schema = { type: 'object', properties: { a: { type: 'boolean' } } };
    assert.equal(answerOf(plan('chat', chat('x', { guided_json: schema }), vllm)), '{"a":true}');
    const text = { guided_json: JSON.stringify(schema) };
    assert.equal(answerOf(plan('completion', { prompt: 'x', ...text }, vllm)), '{"a":true}');
    const so = { structured_outputs: { choice: ['yes', 'no'] } };
    assert.equal(answerOf(plan('chat', chat('x', so), vllm)), 'yes');
    assert.equal(answerOf(plan('chat', chat('x', { guided_choice: ['b'] }), vllm)), 'b');
    assert.equal(answerOf(plan('chat', chat('x', { guided_json: schema }))), undefined);
    assert.equal(answerOf(plan('chat', chat('x', { guided_regex: 'a+' }), vllm)), undefined);
  });

  void it('tool_choice required or named forces a call built from the schema', () => {
    const required = plan(
      'chat',
      chat('<sim-answer>plain</sim-answer>', { tools: [WEATHER, TIME], tool_choice: 'required' }),
    );
    assert.equal(
      answerOf(required),
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "sim"}}\n</tool_call>',
    );
    assert.deepEqual(required.tools, {
      parse: true,
      forced: { name: 'get_weather', parameters: WEATHER.function.parameters },
    });
    const named = { type: 'function', function: { name: 'get_time' } };
    const p = plan('chat', chat('x', { tools: [WEATHER, TIME], tool_choice: named }));
    assert.equal(answerOf(p), '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>');
    // A directive that writes the calls itself is answered as written.
    const scripted = plan(
      'chat',
      chat(`<sim-answer>${CALL}</sim-answer>`, { tools: [WEATHER, TIME], tool_choice: 'required' }),
    );
    assert.equal(answerOf(scripted), CALL);
  });

  void it('auto parses when tools are given; none and no tools do not', () => {
    assert.equal(plan('chat', chat('x', { tools: [WEATHER] })).tools?.parse, true);
    assert.equal(
      plan('chat', chat('x', { tools: [WEATHER], tool_choice: 'none' })).tools?.parse,
      false,
    );
    assert.equal(plan('chat', chat('x', { tools: [], tool_choice: 'auto' })).tools?.parse, false);
    assert.equal(plan('chat', chat('x')).tools, undefined);
  });

  void it('refuses bad tools, tool_choice and constraints with 400', () => {
    rejects('chat', chat('x', { tools: {} }), /'tools' must be an array/);
    rejects('chat', chat('x', { tools: [{ type: 'function', function: {} }] }), /function.name/);
    rejects(
      'chat',
      chat('x', { tools: [WEATHER], tool_choice: 'sometimes' }),
      /'tool_choice' must be/,
    );
    rejects('chat', chat('x', { tool_choice: 'required' }), /needs 'tools'/);
    const other = { type: 'function', function: { name: 'nope' } };
    rejects(
      'chat',
      chat('x', { tools: [WEATHER], tool_choice: other }),
      /'nope', which is not in 'tools'/,
    );
    rejects('chat', chat('x', { response_format: { type: 'yaml' } }), /response_format.type/);
    rejects(
      'chat',
      chat('x', { response_format: { type: 'json_schema' } }),
      /json_schema' must be/,
    );
    rejects('generate', { text: 'x', sampling_params: { json_schema: {} } }, /must be a string/);
    rejects('generate', { text: 'x', sampling_params: { json_schema: '{' } }, /not valid JSON/);
    rejects('chat', chat('x', { guided_json: '{' }), /not valid JSON/, {
      ...defaults,
      runtime: 'vllm',
    });
  });
});
