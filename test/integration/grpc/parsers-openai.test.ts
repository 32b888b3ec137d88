// Tool calls and reasoning in gRPC mode through the official openai client: the simulated Qwen3
// engine answers the text a `<sim-answer>` directive in the prompt names, the gateway parses it
// with the model's parsers (Qwen3: `qwen` tool calls, `qwen3` reasoning), streamed and not.
// `tool_choice: required` and named functions reach the engine as a JSON-schema constraint;
// `response_format` yields JSON the schema accepts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, metricValue, scrapeMetrics } from '../../helpers/gateway.js';
import {
  generateRequests,
  qwen3DirWithEos,
  startGrpcGateway,
  startQwenEngine,
} from '../../helpers/grpc.js';

let engine: SimWorker;
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  engine = await startQwenEngine({ runtime: 'sglang', tokenizerDir: qwen3DirWithEos() });
  gateway = await startGrpcGateway([engine]);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await engine.close();
});

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city'],
      },
    },
  },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
];

/** A user turn that makes the simulated model answer `answer` exactly. */
const saying = (answer: string): OpenAI.Chat.Completions.ChatCompletionMessageParam[] => [
  { role: 'user', content: `Please answer. <sim-answer>${answer}</sim-answer>` },
];

const CALL =
  'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris \\"centre\\"", "unit": "c"}}\n</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';

/** A function tool call as the gateway returns it (the openai types also allow custom tools). */
interface FnCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}
const fnCalls = (m: { tool_calls?: unknown } | undefined): FnCall[] | undefined =>
  m?.tool_calls as FnCall[] | undefined;

interface Collected {
  content: string;
  reasoning: string;
  calls: { id: string; name: string; arguments: string }[];
  finish: string | null;
}

/** A streamed answer's deltas put together, as a client would. */
async function collectStream(
  body: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming,
): Promise<Collected> {
  const out: Collected = { content: '', reasoning: '', calls: [], finish: null };
  const stream = await client.chat.completions.create(body);
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const delta = choice.delta as typeof choice.delta & { reasoning_content?: string };
    out.content += delta.content ?? '';
    out.reasoning += delta.reasoning_content ?? '';
    for (const t of delta.tool_calls ?? []) {
      const call = (out.calls[t.index] ??= { id: '', name: '', arguments: '' });
      if (t.id !== undefined) call.id = t.id;
      if (t.function?.name !== undefined) {
        assert.equal(call.name, '', 'a call is named once');
        call.name = t.function.name;
      }
      call.arguments += t.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) out.finish = choice.finish_reason;
  }
  return out;
}

describe('tool calls', () => {
  it('auto: the model markup becomes tool_calls, whole and streamed alike', async () => {
    const whole = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying(CALL),
      tools,
    });
    const message = whole.choices[0]?.message;
    assert.equal(whole.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(message?.content, 'Let me check.\n', 'the text before the call, as written');
    const calls = fnCalls(message) ?? [];
    assert.deepEqual(
      calls.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments) as unknown]),
      [
        ['function', 'get_weather', { city: 'Paris "centre"', unit: 'c' }],
        ['function', 'get_time', {}],
      ],
    );
    for (const c of calls) assert.match(c.id, /^call_[0-9a-f]{24}$/);

    const streamed = await collectStream({
      model: 'qwen3',
      messages: saying(CALL),
      tools,
      stream: true,
    });
    assert.equal(streamed.finish, 'tool_calls');
    assert.equal(streamed.content, 'Let me check.\n');
    assert.deepEqual(
      streamed.calls.map((c) => [c.name, c.arguments]),
      calls.map((c) => [c.function.name, c.function.arguments]),
    );
    for (const c of streamed.calls) assert.match(c.id, /^call_[0-9a-f]{24}$/);
  });

  it('parallel_tool_calls false keeps the first call only', async () => {
    const body = { model: 'qwen3', messages: saying(CALL), tools, parallel_tool_calls: false };
    const whole = await client.chat.completions.create(body);
    assert.deepEqual(
      fnCalls(whole.choices[0]?.message)?.map((c) => c.function.name),
      ['get_weather'],
    );
    const streamed = await collectStream({ ...body, stream: true });
    assert.deepEqual(
      streamed.calls.map((c) => c.name),
      ['get_weather'],
    );
  });

  it('a call cut by max_tokens keeps finish_reason length, streamed and not', async () => {
    const body = { model: 'qwen3', messages: saying(CALL), tools, max_tokens: 12 };
    const whole = await client.chat.completions.create(body);
    assert.equal(whole.choices[0]?.finish_reason, 'length');
    const streamed = await collectStream({ ...body, stream: true });
    assert.equal(streamed.finish, 'length');
  });

  it('a plain answer with tools is content; tool_choice none hides the tools', async () => {
    const plain = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying('It is sunny.'),
      tools,
    });
    assert.equal(plain.choices[0]?.message.content, 'It is sunny.');
    assert.equal(plain.choices[0]?.message.tool_calls, undefined);
    assert.equal(plain.choices[0]?.finish_reason, 'stop');
    const none = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying(CALL),
      tools,
      tool_choice: 'none',
    });
    assert.equal(none.choices[0]?.message.content, CALL, 'no parsing under tool_choice none');
  });

  it('malformed call markup stays content, finish unchanged, and is counted', async () => {
    const broken = 'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": </tool_call>';
    const res = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying(broken),
      tools,
    });
    assert.equal(res.choices[0]?.message.content, broken);
    assert.equal(res.choices[0]?.finish_reason, 'stop');
    const text = await scrapeMetrics(gateway);
    assert.ok(
      (metricValue(text, 'smg_tool_call_parse_failures_total', { parser: 'qwen' }) ?? 0) >= 1,
    );
  });

  it('required: a JSON-schema constraint reaches the engine and its JSON becomes the calls', async () => {
    for (const stream of [false, true]) {
      const before = generateRequests(engine).length;
      const body = { model: 'qwen3', messages: saying('ignored'), tools };
      let calls: { name: string; arguments: string }[];
      if (stream) {
        const out = await collectStream({ ...body, tool_choice: 'required', stream: true });
        calls = out.calls;
      } else {
        const res = await client.chat.completions.create({ ...body, tool_choice: 'required' });
        calls = fnCalls(res.choices[0]?.message)?.map((c) => c.function) ?? [];
      }
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.name, 'get_weather', 'the first tool of the schema');
      assert.equal(
        typeof (JSON.parse(calls[0]?.arguments ?? '') as { city?: unknown }).city,
        'string',
      );
      const sent = generateRequests(engine)[before]?.sampling_params as {
        constraint?: string;
        json_schema?: string;
      };
      assert.equal(sent.constraint, 'json_schema');
      assert.equal((JSON.parse(sent.json_schema ?? '{}') as { type?: string }).type, 'array');
    }
  });

  it('a named function: its parameters are the constraint and the answer its arguments', async () => {
    const res = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying('ignored'),
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const call = fnCalls(res.choices[0]?.message)?.[0];
    assert.equal(res.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(call?.function.name, 'get_weather');
    assert.equal(
      typeof (JSON.parse(call?.function.arguments ?? '') as { city?: unknown }).city,
      'string',
    );
    assert.equal(res.choices[0]?.message.content, null);
  });
});

describe('reasoning', () => {
  it('a <think> block becomes reasoning_content, whole and streamed alike', async () => {
    const answer = '<think>The user wants a number.</think>\n\nForty-two.';
    const whole = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying(answer),
    });
    const message = whole.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage & {
      reasoning_content?: string;
    };
    assert.equal(message.reasoning_content, 'The user wants a number.');
    assert.equal(message.content, '\n\nForty-two.');
    const streamed = await collectStream({
      model: 'qwen3',
      messages: saying(answer),
      stream: true,
    });
    assert.equal(streamed.reasoning, 'The user wants a number.');
    assert.equal(streamed.content, '\n\nForty-two.');
  });

  it('a reply without tags is content; separate_reasoning false keeps the tags in content', async () => {
    const plain = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying('Just an answer.'),
    });
    assert.equal(plain.choices[0]?.message.content, 'Just an answer.');
    const answer = '<think>hmm</think>ok';
    const kept = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying(answer),
      // @ts-expect-error SGLang's request extension, not in the openai types.
      separate_reasoning: false,
    });
    assert.equal(kept.choices[0]?.message.content, answer);
  });

  it('a <think> the user mentions does not start reasoning', async () => {
    const res = await client.chat.completions.create({
      model: 'qwen3',
      messages: [
        {
          role: 'user',
          content: 'What does a <think> tag do? <sim-answer>It marks thoughts.</sim-answer>',
        },
      ],
    });
    const message = res.choices[0]?.message as { content: string; reasoning_content?: string };
    assert.equal(message.content, 'It marks thoughts.');
    assert.equal(message.reasoning_content, undefined);
  });

  it('reasoning then a tool call: only the content is searched for calls', async () => {
    const answer =
      '<think>Maybe <tool_call>{"name": "get_time", "arguments": {}}</tool_call>?</think>Checking.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';
    const res = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying(answer),
      tools,
    });
    const message = res.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage & {
      reasoning_content?: string;
    };
    assert.match(message.reasoning_content ?? '', /get_time/);
    assert.deepEqual(
      fnCalls(message)?.map((c) => c.function.name),
      ['get_weather'],
    );
    assert.equal(message.content, 'Checking.');
  });
});

describe('structured output', () => {
  it('response_format json_schema: the answer is JSON the schema accepts', async () => {
    const res = await client.chat.completions.create({
      model: 'qwen3',
      messages: saying('ignored'),
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name', 'age'],
          },
        },
      },
    });
    const doc = JSON.parse(res.choices[0]?.message.content ?? '') as {
      name: unknown;
      age: unknown;
    };
    assert.equal(typeof doc.name, 'string');
    assert.ok(Number.isInteger(doc.age));
  });
});
