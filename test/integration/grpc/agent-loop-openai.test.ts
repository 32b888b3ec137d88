// The openai client's own tool loop (`chat.completions.runTools`) against a gRPC gateway, whole and
// streamed: it sends back each assistant turn as `{content: null, tool_calls}` followed by `tool`
// messages, which the gateway renders with Qwen3's template (test/helpers/agent-loop.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import {
  assertLoopPrompts,
  EXPECTED_CALLS,
  FINAL_ANSWER,
  promptsSince,
  startLoopFleet,
  runnableTools,
  ToolLog,
  USER_PROMPT,
  type LoopFleet,
} from '../../helpers/agent-loop.js';
import { generateRequests } from '../../helpers/grpc.js';

let fleet: LoopFleet;
let client: OpenAI;

before(async () => {
  fleet = await startLoopFleet();
  client = new OpenAI({ apiKey: 'unused', baseURL: fleet.baseURL, maxRetries: 0 });
});

after(async () => {
  await fleet.close();
});

describe('openai runTools through a gRPC gateway', () => {
  for (const stream of [false, true]) {
    it(`runs the three-step loop to its answer (${stream ? 'streamed' : 'whole'})`, async () => {
      const log = new ToolLog();
      const from = generateRequests(fleet.engine).length;
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        { role: 'user', content: USER_PROMPT },
      ];
      const runner = stream
        ? client.chat.completions.runTools({
            model: 'qwen3',
            messages,
            tools: runnableTools(log),
            stream: true,
          })
        : client.chat.completions.runTools({ model: 'qwen3', messages, tools: runnableTools(log) });
      assert.equal(await runner.finalContent(), FINAL_ANSWER);
      assert.deepEqual(log.calls, EXPECTED_CALLS);
      // The client really sent the shape under test: a tool-call-only turn with null content.
      const sent = runner.messages.find((m) => m.role === 'assistant' && 'tool_calls' in m);
      assert.ok(sent !== undefined && sent.role === 'assistant');
      assert.equal(sent.content ?? null, null);
      assertLoopPrompts(promptsSince(fleet.engine, from));
    });
  }
});
