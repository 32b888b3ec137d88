// The openai client's tool loop and structured output in HTTP mode, through the gateway to a
// simulated SGLang worker that answers tool calls as SGLang does (`tool_calls` in the message and
// in deltas) and JSON that a `response_format` schema accepts. The same three-step loop as the
// gRPC tests (test/helpers/agent-loop.ts): the worker answers the last `<sim-answer>` of the
// conversation, which the tools' results carry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  EXPECTED_CALLS,
  FINAL_ANSWER,
  runnableTools,
  ToolLog,
  USER_PROMPT,
} from '../helpers/agent-loop.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

let worker: SimWorker;
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  gateway = await startTestGateway(['--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await worker.close();
});

describe('HTTP mode: a client tool loop and structured output', () => {
  for (const stream of [false, true]) {
    it(`runTools takes the three steps to the answer (${stream ? 'streamed' : 'whole'})`, async () => {
      const log = new ToolLog();
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        { role: 'user', content: USER_PROMPT },
      ];
      const runner = stream
        ? client.chat.completions.runTools({
            model: 'sim-model',
            messages,
            tools: runnableTools(log),
            stream: true,
          })
        : client.chat.completions.runTools({
            model: 'sim-model',
            messages,
            tools: runnableTools(log),
          });
      assert.equal(await runner.finalContent(), FINAL_ANSWER);
      assert.deepEqual(log.calls, EXPECTED_CALLS);
      // The worker saw the whole conversation: two assistant turns with their calls, three results.
      const body = worker.stats().lastRequest?.body as { messages: { role: string }[] };
      assert.deepEqual(
        body.messages.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool'],
      );
    });
  }

  it('response_format json_schema answers JSON the schema accepts, whole and streamed', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'integer' } },
      required: ['city', 'celsius'],
      additionalProperties: false,
    };
    const body = {
      model: 'sim-model',
      messages: [{ role: 'user' as const, content: 'The weather, as JSON.' }],
      response_format: { type: 'json_schema' as const, json_schema: { name: 'weather', schema } },
    };
    const whole = await client.chat.completions.create(body);
    const value = JSON.parse(whole.choices[0]?.message.content ?? '') as Record<string, unknown>;
    assert.equal(typeof value.city, 'string');
    assert.ok(Number.isInteger(value.celsius));
    assert.deepEqual(Object.keys(value).sort(), ['celsius', 'city']);
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ ...body, stream: true }))
      streamed += chunk.choices[0]?.delta.content ?? '';
    assert.deepEqual(JSON.parse(streamed), value);
  });
});
