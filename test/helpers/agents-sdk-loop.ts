/**
 * The OpenAI Agents SDK's runs of the three-step loop (test/helpers/agent-loop.ts), for whichever
 * model the SDK is given: its Chat Completions model or its default Responses model. Each run
 * checks the final output, the tools called, and what the engine was sent.
 */
import assert from 'node:assert/strict';
import { Agent, run, tool, type Model } from '@openai/agents';
import { z } from 'zod';
import {
  assertLoopPrompts,
  EXPECTED_CALLS,
  FINAL_ANSWER,
  promptsSince,
  TIME_DESCRIPTION,
  ToolLog,
  USER_PROMPT,
  WEATHER_DESCRIPTION,
  type LoopFleet,
} from './agent-loop.js';
import { generateRequests } from './grpc.js';

/** The loop's agent: the two tools, logging into `log`, on `model`. */
export function weatherAgent(log: ToolLog, model: Model): Agent {
  return new Agent({
    name: 'weather',
    instructions: 'Answer with the tools.',
    model,
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

/** `run()` takes the three steps to the final output, the instructions rendered. */
export async function assertAgentLoop(fleet: LoopFleet, model: Model): Promise<void> {
  const log = new ToolLog();
  const from = generateRequests(fleet.engine).length;
  const result = await run(weatherAgent(log, model), USER_PROMPT);
  assert.equal(result.finalOutput, FINAL_ANSWER);
  assert.deepEqual(log.calls, EXPECTED_CALLS);
  const prompts = promptsSince(fleet.engine, from);
  assertLoopPrompts(prompts);
  assert.ok(prompts[0]?.includes('Answer with the tools.'), 'the instructions are rendered');
}

/** `run()` streamed does the same, and the final answer arrives as its text deltas. */
export async function assertStreamedAgentLoop(fleet: LoopFleet, model: Model): Promise<void> {
  const log = new ToolLog();
  const from = generateRequests(fleet.engine).length;
  const result = await run(weatherAgent(log, model), USER_PROMPT, { stream: true });
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
}
