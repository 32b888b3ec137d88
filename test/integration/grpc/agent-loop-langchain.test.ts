// LangChain against a gRPC gateway: its agent loop (`createAgent` over `ChatOpenAI`), and a loop of
// streamed `bindTools(...).stream()` calls, as LangChain apps write one by hand. LangChain sends its
// AIMessage tool calls back as assistant turns and its ToolMessages as `tool` messages, which the
// gateway renders with Qwen3's template (test/helpers/agent-loop.ts). The agent runs a whole
// (non-streaming) model: a streaming ChatOpenAI inside `invoke` estimates token counts with a
// tiktoken file it fetches from the internet, retrying for minutes when there is no network.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChatOpenAI } from '@langchain/openai';
import {
  createAgent,
  HumanMessage,
  tool,
  type AIMessageChunk,
  type BaseMessage,
  type ToolMessage,
} from 'langchain';
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

before(async () => {
  // LangSmith tracing stays off whatever the environment says.
  process.env.LANGSMITH_TRACING = 'false';
  fleet = await startLoopFleet();
});

after(async () => {
  await fleet.close();
});

function toolsFor(log: ToolLog) {
  return [
    tool(({ city }) => log.weather(city), {
      name: 'get_weather',
      description: WEATHER_DESCRIPTION,
      schema: z.object({ city: z.string() }),
    }),
    tool(({ zone }) => log.time(zone), {
      name: 'get_time',
      description: TIME_DESCRIPTION,
      schema: z.object({ zone: z.string() }),
    }),
  ];
}

const chatModel = (streaming: boolean): ChatOpenAI =>
  new ChatOpenAI({
    model: 'qwen3',
    apiKey: 'unused',
    streaming,
    maxRetries: 0,
    configuration: { baseURL: fleet.baseURL },
  });

describe('LangChain through a gRPC gateway', () => {
  it('createAgent runs the three-step loop to its answer', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const agent = createAgent({ model: chatModel(false), tools: toolsFor(log) });
    const state = await agent.invoke({ messages: [{ role: 'user', content: USER_PROMPT }] });
    assert.equal(state.messages.at(-1)?.text, FINAL_ANSWER);
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    assertLoopPrompts(promptsSince(fleet.engine, from));
  });

  it('a loop of streamed bindTools calls reaches the answer', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const tools = toolsFor(log);
    const model = chatModel(true).bindTools(tools);
    const messages: BaseMessage[] = [new HumanMessage(USER_PROMPT)];
    for (let step = 0; step < 5; step++) {
      let reply: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(messages))
        reply = reply === undefined ? chunk : reply.concat(chunk);
      assert.ok(reply !== undefined);
      messages.push(reply);
      const calls = reply.tool_calls ?? [];
      if (calls.length === 0) break;
      for (const call of calls) {
        const chosen = tools.find((t) => t.name === call.name);
        assert.ok(chosen !== undefined, `a known tool: ${call.name}`);
        // Invoked with the call itself, a LangChain tool answers the ToolMessage for it.
        const invoke = chosen.invoke.bind(chosen) as (c: typeof call) => Promise<ToolMessage>;
        messages.push(await invoke(call));
      }
    }
    assert.equal(messages.at(-1)?.text, FINAL_ANSWER);
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    const sent = generateRequests(fleet.engine).slice(from);
    assert.ok(
      sent.every((r) => r.stream === true),
      'every step streamed',
    );
    assertLoopPrompts(promptsSince(fleet.engine, from));
  });
});
