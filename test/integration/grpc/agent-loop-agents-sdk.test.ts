// The OpenAI Agents SDK's runner with its Chat Completions model against a gRPC gateway, whole and
// streamed: the SDK turns its history items into chat messages (assistant turns with `tool_calls`
// and null content, then `tool` messages), which the gateway renders with Qwen3's template
// (test/helpers/agent-loop.ts).
import { after, before, describe, it } from 'node:test';
import { OpenAIChatCompletionsModel, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { startLoopFleet, type LoopFleet } from '../../helpers/agent-loop.js';
import { assertAgentLoop, assertStreamedAgentLoop } from '../../helpers/agents-sdk-loop.js';

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

describe('OpenAI Agents SDK through a gRPC gateway', () => {
  it('run() takes the three steps to the final output', () =>
    assertAgentLoop(fleet, new OpenAIChatCompletionsModel(client, 'qwen3')));

  it('run() streamed takes the three steps to the final output', () =>
    assertStreamedAgentLoop(fleet, new OpenAIChatCompletionsModel(client, 'qwen3')));
});
