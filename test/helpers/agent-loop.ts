/**
 * A three-step agent loop that every client test drives the same way, against a gRPC gateway in
 * front of a simulated Qwen3 engine (real tokenizer and chat template, `qwen` tool parser). The
 * simulated model answers the last `<sim-answer>` directive its prompt holds, and each tool's
 * result carries the next one, so the conversation is scripted by the tools:
 *
 *   1. user asks              → model calls get_weather(Paris)
 *   2. its result             → model calls get_weather(Lyon) and get_time(Europe/Paris) at once
 *   3. their results          → model answers FINAL_ANSWER
 *
 * Step 2's request carries a tool-call-only assistant turn (`content: null`) and a tool result;
 * step 3's carries two of each. What the engine was sent is checked against Qwen3's template.
 */
import assert from 'node:assert/strict';
import type { SimWorker } from '@switchyard/sim';
import type { RunnableToolFunctionWithParse } from 'openai/lib/RunnableFunction';
import { generateRequests, startQwenFleet, type QwenFleet } from './grpc.js';

export const FINAL_ANSWER = 'It is sunny in Paris and raining in Lyon; it is noon.';

/** JSON as Jinja's `tojson` (Python's json.dumps) writes it: `", "` and `": "` separators. */
function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** A call as Qwen3 writes it, and as its template renders a call sent back to it. */
const call = (name: string, args: Record<string, unknown>): string =>
  `<tool_call>\n${pyJson({ name, arguments: args })}\n</tool_call>`;
const directive = (text: string): string => `<sim-answer>${text}</sim-answer>`;

export const USER_PROMPT = `What is the weather in Paris and Lyon? ${directive(call('get_weather', { city: 'Paris' }))}`;

/** What the tools answer; the last result of a turn carries the model's next answer. */
export function weather(city: string): string {
  if (city === 'Paris')
    return `sunny in Paris ${directive(`${call('get_weather', { city: 'Lyon' })}\n${call('get_time', { zone: 'Europe/Paris' })}`)}`;
  return `raining in ${city}`;
}
export function time(zone: string): string {
  return `noon in ${zone} ${directive(FINAL_ANSWER)}`;
}

export const WEATHER_DESCRIPTION = 'The weather in a city';
export const TIME_DESCRIPTION = 'The local time in a time zone';
export const WEATHER_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
export const TIME_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { zone: { type: 'string' } },
  required: ['zone'],
  additionalProperties: false,
};

/** The tool invocations a loop made, in order, as `name(arg)`. */
export class ToolLog {
  readonly calls: string[] = [];
  weather = (city: string): string => {
    this.calls.push(`get_weather(${city})`);
    return weather(city);
  };
  time = (zone: string): string => {
    this.calls.push(`get_time(${zone})`);
    return time(zone);
  };
}

/** The two tools as the openai client's `runTools` takes them, logging into `log`. */
export function runnableTools(log: ToolLog) {
  const weather: RunnableToolFunctionWithParse<{ city: string }> = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: WEATHER_DESCRIPTION,
      parameters: WEATHER_PARAMETERS,
      parse: (raw) => JSON.parse(raw) as { city: string },
      function: (a) => log.weather(a.city),
    },
  };
  const time: RunnableToolFunctionWithParse<{ zone: string }> = {
    type: 'function',
    function: {
      name: 'get_time',
      description: TIME_DESCRIPTION,
      parameters: TIME_PARAMETERS,
      parse: (raw) => JSON.parse(raw) as { zone: string },
      function: (a) => log.time(a.zone),
    },
  };
  return [weather, time];
}

export const EXPECTED_CALLS = ['get_weather(Paris)', 'get_weather(Lyon)', 'get_time(Europe/Paris)'];

export interface LoopFleet extends QwenFleet {
  /** The gateway's OpenAI-compatible base URL (`…/v1`). */
  baseURL: string;
}

export async function startLoopFleet(flags: string[] = []): Promise<LoopFleet> {
  const fleet = await startQwenFleet(flags);
  return { ...fleet, baseURL: `${fleet.gateway.url}/v1` };
}

/** The rendered prompts of the Generate calls the engine received since `from`. */
export function promptsSince(engine: SimWorker, from: number): string[] {
  return generateRequests(engine)
    .slice(from)
    .map((r) => (r.tokenized as { original_text: string }).original_text);
}

/**
 * The loop's three prompts as Qwen3's template renders them: the assistant's tool-call turns with
 * their arguments as JSON objects, each turn's tool results in one user turn, in call order.
 */
export function assertLoopPrompts(prompts: readonly string[]): void {
  assert.equal(prompts.length, 3, `three model calls, got ${prompts.length}`);
  const [first, second, third] = prompts as [string, string, string];
  assert.ok(first.includes(USER_PROMPT), 'the user turn is in the first prompt');
  assert.ok(first.endsWith('<|im_start|>assistant\n'), 'the first prompt asks for a reply');
  const parisCall = `<|im_start|>assistant\n${call('get_weather', { city: 'Paris' })}<|im_end|>\n`;
  assert.ok(second.includes(parisCall), `step 2 renders the tool-call turn:\n${second}`);
  assert.ok(
    second.includes(`<tool_response>\n${weather('Paris')}\n</tool_response>`),
    'step 2 renders the tool result',
  );
  assert.ok(third.startsWith(second.slice(0, second.lastIndexOf('<|im_start|>assistant\n'))));
  assert.ok(
    third.includes(
      `${call('get_weather', { city: 'Lyon' })}\n${call('get_time', { zone: 'Europe/Paris' })}<|im_end|>\n`,
    ),
    `step 3 renders both parallel calls in one turn:\n${third}`,
  );
  assert.ok(
    third.includes(
      `<|im_start|>user\n<tool_response>\n${weather('Lyon')}\n</tool_response>\n<tool_response>\n${time('Europe/Paris')}\n</tool_response><|im_end|>\n`,
    ),
    `step 3 renders both results in one user turn, in call order:\n${third}`,
  );
}
