// --tool-call-parser and --reasoning-parser force one parser for every model (here: Mistral tool
// calls and DeepSeek-R1 reasoning, which starts in reasoning at the first token, on a Qwen3
// engine), and SMG's admin routes /parse/function_call and /parse/reasoning run a named parser on
// a given text.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import { qwen3DirWithEos, startGrpcGateway, startQwenEngine } from '../../helpers/grpc.js';
import { postJson } from '../../helpers/http.js';

let engine: SimWorker;
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  engine = await startQwenEngine({ runtime: 'vllm', tokenizerDir: qwen3DirWithEos() });
  gateway = await startGrpcGateway(
    [engine],
    ['--tool-call-parser', 'mistral', '--reasoning-parser', 'deepseek_r1'],
  );
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await engine.close();
});

it('forced parsers: DeepSeek-R1 reasoning from the first token, then Mistral tool calls', async () => {
  const answer =
    'I should look it up.</think>[TOOL_CALLS] [{"name": "get_time", "arguments": {"tz": "UTC"}}]';
  const res = await client.chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: `<sim-answer>${answer}</sim-answer>` }],
    tools: [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } }],
  });
  const message = res.choices[0]?.message as { reasoning_content?: string; tool_calls?: unknown };
  assert.equal(message.reasoning_content, 'I should look it up.');
  assert.deepEqual(
    (message.tool_calls as { function: { name: string; arguments: string } }[]).map((c) => [
      c.function.name,
      JSON.parse(c.function.arguments) as unknown,
    ]),
    [['get_time', { tz: 'UTC' }]],
  );
  assert.equal(res.choices[0]?.finish_reason, 'tool_calls');
});

it("/parse/function_call and /parse/reasoning answer with SMG's shapes", async () => {
  const calls = await postJson(`${gateway.url}/parse/function_call`, {
    text: 'Sure <tool_call>\n{"name": "f", "arguments": {"a": [1, {"b": "x\\"y"}]}}\n</tool_call>',
    tool_call_parser: 'qwen',
    tools: [],
  });
  assert.equal(calls.status, 200);
  assert.deepEqual(await calls.json(), {
    remaining_text: 'Sure ',
    tool_calls: [{ function: { name: 'f', arguments: '{"a":[1,{"b":"x\\"y"}]}' } }],
    success: true,
  });

  const reasoning = await postJson(`${gateway.url}/parse/reasoning`, {
    text: 'thinking here</think>The answer.',
    reasoning_parser: 'deepseek_r1',
  });
  assert.deepEqual(await reasoning.json(), {
    normal_text: 'The answer.',
    reasoning_text: 'thinking here',
    success: true,
  });

  const unknown = await postJson(`${gateway.url}/parse/reasoning`, {
    text: 'x',
    reasoning_parser: 'nope',
  });
  assert.equal(unknown.status, 400);
  assert.deepEqual(await unknown.json(), {
    error: 'Unknown reasoning parser: nope',
    success: false,
  });
  const bad = await postJson(`${gateway.url}/parse/function_call`, { text: 1 });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { success: boolean }).success, false);
});
