// The Vercel AI SDK's multi-step tool loop (`generateText` and `streamText` with `stopWhen`)
// through its OpenAI-compatible provider against a gRPC gateway: the SDK sends each assistant
// turn back with its tool calls and the tool results as `tool` messages, which the gateway
// renders with Qwen3's template (test/helpers/agent-loop.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import {
  assertLoopPrompts,
  EXPECTED_CALLS,
  FINAL_ANSWER,
  promptsSince,
  startLoopFleet,
  TIME_DESCRIPTION,
  ToolLog,
  USER_PROMPT,
  WEATHER_DESCRIPTION,
  type LoopFleet,
} from '../../helpers/agent-loop.js';
import { generateRequests } from '../../helpers/grpc.js';

let fleet: LoopFleet;
let provider: ReturnType<typeof createOpenAICompatible>;

before(async () => {
  fleet = await startLoopFleet();
  provider = createOpenAICompatible({
    name: 'switchyard',
    baseURL: fleet.baseURL,
    apiKey: 'unused',
    includeUsage: true,
  });
});

after(async () => {
  await fleet.close();
});

function tools(log: ToolLog) {
  return {
    get_weather: tool({
      description: WEATHER_DESCRIPTION,
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => Promise.resolve(log.weather(city)),
    }),
    get_time: tool({
      description: TIME_DESCRIPTION,
      inputSchema: z.object({ zone: z.string() }),
      execute: ({ zone }) => Promise.resolve(log.time(zone)),
    }),
  };
}

describe('AI SDK tool loops through a gRPC gateway', () => {
  it('generateText runs the three steps to the answer', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const result = await generateText({
      model: provider('qwen3'),
      tools: tools(log),
      stopWhen: stepCountIs(5),
      prompt: USER_PROMPT,
      maxRetries: 0,
    });
    assert.equal(result.text, FINAL_ANSWER);
    assert.equal(result.steps.length, 3);
    assert.deepEqual(
      result.steps.map((s) => s.finishReason),
      ['tool-calls', 'tool-calls', 'stop'],
    );
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    assert.ok(result.totalUsage.inputTokens !== undefined && result.totalUsage.inputTokens > 0);
    assertLoopPrompts(promptsSince(fleet.engine, from));
  });

  it('streamText runs the three steps to the answer', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const errors: unknown[] = [];
    const result = streamText({
      model: provider('qwen3'),
      tools: tools(log),
      stopWhen: stepCountIs(5),
      prompt: USER_PROMPT,
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    let streamed = '';
    for await (const part of result.fullStream)
      if (part.type === 'text-delta') streamed += part.text;
    assert.deepEqual(errors, []);
    assert.equal(await result.text, FINAL_ANSWER);
    assert.equal(streamed, FINAL_ANSWER, 'only the last step has text');
    assert.equal((await result.steps).length, 3);
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    assertLoopPrompts(promptsSince(fleet.engine, from));
  });
});
