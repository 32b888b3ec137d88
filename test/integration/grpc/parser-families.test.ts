// Every tool-call format end to end, picked by SMG's model-name mapping: one simulated engine per
// model family, each answering one call in its family's own markup; the official openai client
// gets the same tool call whole and streamed. The engines use the simulator's byte-level tokenizer
// (ten Qwen3 tokenizers would take most of a loaded CI machine's readiness budget to parse), so
// every marker arrives split into single-byte tokens, the hardest case for the streaming parsers;
// parsers-openai.test.ts runs the Qwen3 tokenizer. DeepSeek-R1's reasoning starts at the first
// token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import { startSimGrpcWorker } from '@switchyard/sim';
import { startGrpcGateway } from '../../helpers/grpc.js';

/** Per model id: the answer in its family's markup, and the parser SMG maps the id to. */
const FAMILIES: { model: string; parser: string; answer: string; id?: RegExp }[] = [
  {
    model: 'mistral-7b-instruct',
    parser: 'mistral',
    answer: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
  },
  {
    model: 'llama-3.2-3b-instruct',
    parser: 'llama',
    answer: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
  },
  { model: 'llama-4-scout', parser: 'pythonic', answer: '[get_weather(city="Paris")]' },
  {
    model: 'deepseek-v3',
    parser: 'deepseek',
    answer:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  {
    model: 'deepseek-v3.1',
    parser: 'deepseek31',
    answer:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  {
    model: 'kimi-k2-instruct',
    parser: 'kimik2',
    answer:
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    id: /^functions\.get_weather:0$/,
  },
  {
    model: 'glm-4.5-air',
    parser: 'glm45_moe',
    answer:
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>',
  },
  {
    model: 'qwen3-coder-30b',
    parser: 'qwen_xml',
    answer:
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
  },
  {
    model: 'gpt-4o-mini',
    parser: 'json',
    answer: '{"name": "get_weather", "arguments": {"city": "Paris"}}',
  },
];

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

let engines: SimWorker[] = [];
let gateway: Gateway | undefined;
let client: OpenAI;

before(async () => {
  const models = [...FAMILIES.map((f) => f.model), 'deepseek-r1-distill'];
  engines = await Promise.all(
    models.map((model) =>
      startSimGrpcWorker({ runtime: 'sglang', model, ttftMs: 1, itlMs: 1, seed: 1 }),
    ),
  );
  gateway = await startGrpcGateway(engines);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  // A fleet that never became ready leaves no gateway to check.
  if (gateway !== undefined) {
    await assertAllReleased(gateway);
    await gateway.close();
  }
  await Promise.all(engines.map((e) => e.close()));
});

const saying = (answer: string): OpenAI.Chat.Completions.ChatCompletionMessageParam[] => [
  { role: 'user', content: `What is the weather? <sim-answer>${answer}</sim-answer>` },
];

interface Call {
  id: string;
  name: string;
  arguments: string;
}

describe('each family by its model id, whole and streamed', () => {
  for (const f of FAMILIES) {
    it(`${f.model} → ${f.parser}`, async () => {
      const whole = await client.chat.completions.create({
        model: f.model,
        messages: saying(f.answer),
        tools,
      });
      const calls = (whole.choices[0]?.message.tool_calls ?? []) as unknown as {
        id: string;
        function: { name: string; arguments: string };
      }[];
      assert.equal(whole.choices[0]?.finish_reason, 'tool_calls', JSON.stringify(whole));
      assert.deepEqual(
        calls.map((c) => [c.function.name, JSON.parse(c.function.arguments) as unknown]),
        [['get_weather', { city: 'Paris' }]],
      );
      assert.match(calls[0]?.id ?? '', f.id ?? /^call_[0-9a-f]{24}$/);
      assert.equal((whole.choices[0]?.message.content ?? '').trim(), '');

      const stream = await client.chat.completions.create({
        model: f.model,
        messages: saying(f.answer),
        tools,
        stream: true,
      });
      const streamed: Call[] = [];
      let content = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        content += choice?.delta.content ?? '';
        for (const t of choice?.delta.tool_calls ?? []) {
          const call = (streamed[t.index] ??= { id: '', name: '', arguments: '' });
          call.id += t.id ?? '';
          call.name += t.function?.name ?? '';
          call.arguments += t.function?.arguments ?? '';
        }
        finish = choice?.finish_reason ?? finish;
      }
      assert.equal(finish, 'tool_calls');
      assert.equal(content.trim(), '', 'no markup leaks into content');
      assert.deepEqual(
        streamed.map((c) => [c.name, c.arguments]),
        calls.map((c) => [c.function.name, c.function.arguments]),
      );
    });
  }
});

it('deepseek-r1: reasoning from the first token, the answer after </think>', async () => {
  const res = await client.chat.completions.create({
    model: 'deepseek-r1-distill',
    messages: saying('Paris is in France.</think>It is sunny.'),
  });
  const message = res.choices[0]?.message as { content: string; reasoning_content?: string };
  assert.equal(message.reasoning_content, 'Paris is in France.');
  assert.equal(message.content, 'It is sunny.');
});
