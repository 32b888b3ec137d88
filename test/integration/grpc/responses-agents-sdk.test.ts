// The OpenAI Agents SDK's default model (the Responses API) against a gRPC gateway: an agent with
// function tools runs the three-step loop of test/helpers/agent-loop.ts whole and streamed, and a
// second run continues the first by `previous_response_id` (the SDK then sends only the new
// turn, so the gateway must supply the history from its store).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
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
    model: new OpenAIResponsesModel(client, 'qwen3'),
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

describe('OpenAI Agents SDK (Responses model) through a gRPC gateway', () => {
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
    assert.equal(result.finalOutput, FINAL_ANSWER);
    assert.ok(deltas.includes(FINAL_ANSWER), 'the answer was streamed');
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    assertLoopPrompts(promptsSince(fleet.engine, from));
  });

  it('a second run continues the first by previous_response_id', async () => {
    const agent = new Agent({
      name: 'memory',
      instructions: 'Remember.',
      model: new OpenAIResponsesModel(client, 'qwen3'),
    });
    const first = await run(agent, 'My name is Ada. <sim-answer>Hello, Ada.</sim-answer>');
    assert.equal(first.finalOutput, 'Hello, Ada.');
    const previousResponseId = first.lastResponseId;
    assert.ok(previousResponseId !== undefined && previousResponseId.startsWith('resp_'));
    const from = generateRequests(fleet.engine).length;
    const second = await run(agent, 'Who am I? <sim-answer>You are Ada.</sim-answer>', {
      previousResponseId,
    });
    assert.equal(second.finalOutput, 'You are Ada.');
    const [prompt] = promptsSince(fleet.engine, from);
    assert.ok(prompt?.includes('My name is Ada.'), 'the stored turn is rendered');
    assert.ok(prompt?.includes('Hello, Ada.'), 'and so is its answer');
  });
});
