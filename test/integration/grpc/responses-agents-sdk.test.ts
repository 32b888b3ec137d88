// The OpenAI Agents SDK's default model (the Responses API) against a gRPC gateway: an agent with
// function tools runs the three-step loop of test/helpers/agent-loop.ts whole and streamed, and a
// second run continues the first by `previous_response_id` (the SDK then sends only the new
// turn, so the gateway must supply the history from its store).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { promptsSince, startLoopFleet, type LoopFleet } from '../../helpers/agent-loop.js';
import { assertAgentLoop, assertStreamedAgentLoop } from '../../helpers/agents-sdk-loop.js';
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

describe('OpenAI Agents SDK (Responses model) through a gRPC gateway', () => {
  it('run() takes the three steps to the final output', () =>
    assertAgentLoop(fleet, new OpenAIResponsesModel(client, 'qwen3')));

  it('run() streamed takes the three steps to the final output', () =>
    assertStreamedAgentLoop(fleet, new OpenAIResponsesModel(client, 'qwen3')));

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
