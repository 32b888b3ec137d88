// The OpenAI Agents SDK's runner with its Chat Completions model against a gRPC gateway, whole and
// streamed: the SDK turns its history items into chat messages (assistant turns with `tool_calls`
// and null content, then `tool` messages), which the gateway renders with Qwen3's template
// (test/helpers/agent-loop.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
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
let client: OpenAI;

before(async () => {
  // The SDK would otherwise export traces to OpenAI's servers.
  setTracingDisabled(true);
  fleet = await startLoopFleet();
  client = new OpenAI({ apiKey: 'unused', baseURL: fleet.baseURL, maxRetries: 0 });
});

after(async () => {
  await fleet.close();
});

function agentWith(log: ToolLog): Agent {
  return new Agent({
    name: 'weather',
    instructions: 'Answer with the tools.',
    model: new OpenAIChatCompletionsModel(client, 'qwen3'),
    tools: [
      tool({
        name: 'get_weather',
        description: WEATHER_DESCRIPTION,
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => log.weather(city),
      }),
      tool({
        name: 'get_time',
        description: TIME_DESCRIPTION,
        parameters: z.object({ zone: z.string() }),
        execute: ({ zone }) => log.time(zone),
      }),
    ],
  });
}

describe('OpenAI Agents SDK through a gRPC gateway', () => {
  it('run() takes the three steps to the final output', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const result = await run(agentWith(log), USER_PROMPT);
    assert.equal(result.finalOutput, FINAL_ANSWER);
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    const prompts = promptsSince(fleet.engine, from);
    assertLoopPrompts(prompts);
    assert.ok(prompts[0]?.includes('Answer with the tools.'), 'the instructions are rendered');
  });

  it('run() streamed takes the three steps to the final output', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const result = await run(agentWith(log), USER_PROMPT, { stream: true });
    let deltas = '';
    for await (const event of result) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta')
        deltas += event.data.delta;
    }
    await result.completed;
    assert.equal(result.error, null);
    assert.equal(result.finalOutput, FINAL_ANSWER);
    assert.equal(deltas, FINAL_ANSWER);
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    assertLoopPrompts(promptsSince(fleet.engine, from));
  });
});
