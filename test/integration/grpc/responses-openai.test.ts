// The Responses API served natively in gRPC mode, judged by the official `openai` client:
// `responses.create` and `responses.stream` (function calls streamed too), the three-step tool
// loop of test/helpers/agent-loop.ts continued by `previous_response_id` with turns of only
// `function_call_output` items, and by resending the whole history, stored responses read back,
// `store: false`, and a conversation carried across turns. Each loop's prompts are checked
// against Qwen3's template.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type {
  FunctionTool,
  Response,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import {
  assertLoopPrompts,
  EXPECTED_CALLS,
  FINAL_ANSWER,
  promptsSince,
  startLoopFleet,
  TIME_DESCRIPTION,
  TIME_PARAMETERS,
  ToolLog,
  USER_PROMPT,
  WEATHER_DESCRIPTION,
  WEATHER_PARAMETERS,
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

const TOOLS: FunctionTool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: WEATHER_DESCRIPTION,
    parameters: WEATHER_PARAMETERS,
    strict: true,
  },
  {
    type: 'function',
    name: 'get_time',
    description: TIME_DESCRIPTION,
    parameters: TIME_PARAMETERS,
    strict: true,
  },
];

function calls(response: Response): ResponseFunctionToolCall[] {
  return response.output.filter((i): i is ResponseFunctionToolCall => i.type === 'function_call');
}

/** Runs each call the response made, as the client would, and returns their outputs. */
function runCalls(response: Response, log: ToolLog): ResponseInputItem[] {
  return calls(response).map((c) => {
    const args = JSON.parse(c.arguments) as { city?: string; zone?: string };
    const output =
      c.name === 'get_weather' ? log.weather(args.city ?? '') : log.time(args.zone ?? '');
    return { type: 'function_call_output', call_id: c.call_id, output };
  });
}

interface TurnParams {
  input: string | ResponseInputItem[];
  previous_response_id?: string;
}

async function create(params: TurnParams, stream: boolean): Promise<Response> {
  const full = { model: 'qwen3', tools: TOOLS, ...params };
  if (!stream) return client.responses.create(full);
  return client.responses.stream(full).finalResponse();
}

describe('Responses API through a gRPC gateway (openai client)', () => {
  it('create answers the engine text with a stored response that GET returns', async () => {
    const response = await client.responses.create({
      model: 'qwen3',
      input: 'Say hi <sim-answer>Hello there.</sim-answer>',
      instructions: 'Be brief.',
      metadata: { trace: 'a' },
    });
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.match(response.id, /^resp_/);
    assert.equal(response.output_text, 'Hello there.');
    assert.equal(response.instructions, 'Be brief.');
    assert.deepEqual(response.metadata, { trace: 'a' });
    const usage = response.usage;
    assert.ok(usage !== undefined && usage.input_tokens > 0);
    assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
    const stored = await client.responses.retrieve(response.id);
    assert.deepEqual(stored, response);
    const items = await client.responses.inputItems.list(response.id);
    assert.equal(items.data.length, 1);
  });

  it('stream frames the event sequence and the same response is stored under its id', async () => {
    const stream = client.responses.stream({
      model: 'qwen3',
      input: 'Say hi <sim-answer>Hello there, friend.</sim-answer>',
    });
    const types: string[] = [];
    let deltas = '';
    let completed: Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    const final = await stream.finalResponse();
    assert.equal(deltas, 'Hello there, friend.');
    assert.equal(final.output_text, 'Hello there, friend.');
    assert.deepEqual(types.slice(0, 4), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    assert.equal(types.at(-1), 'response.completed');
    // The client adds `parsed` and `output_text` to its own copies; the event is what was sent.
    const { output_text: _text, ...stored } = await client.responses.retrieve(final.id);
    assert.equal(stored.id, final.id);
    assert.deepEqual(stored, completed);
  });

  for (const stream of [false, true]) {
    it(`the tool loop by previous_response_id, function outputs only (${stream ? 'streamed' : 'whole'})`, async () => {
      const log = new ToolLog();
      const from = generateRequests(fleet.engine).length;
      let response = await create({ input: USER_PROMPT }, stream);
      for (let step = 0; step < 3 && calls(response).length > 0; step++) {
        response = await create(
          { previous_response_id: response.id, input: runCalls(response, log) },
          stream,
        );
      }
      assert.equal(response.output_text, FINAL_ANSWER);
      assert.equal(response.previous_response_id !== null, true);
      assert.deepEqual(log.calls, EXPECTED_CALLS);
      assertLoopPrompts(promptsSince(fleet.engine, from));
    });
  }

  it('the tool loop by resending the whole history (as Codex does), store off', async () => {
    const log = new ToolLog();
    const from = generateRequests(fleet.engine).length;
    const history: ResponseInputItem[] = [{ role: 'user', content: USER_PROMPT }];
    let response = await client.responses.create({
      model: 'qwen3',
      input: history,
      tools: TOOLS,
      store: false,
    });
    while (calls(response).length > 0) {
      history.push(...(response.output as ResponseInputItem[]), ...runCalls(response, log));
      response = await client.responses.create({
        model: 'qwen3',
        input: history,
        tools: TOOLS,
        store: false,
      });
    }
    assert.equal(response.output_text, FINAL_ANSWER);
    assert.deepEqual(log.calls, EXPECTED_CALLS);
    assertLoopPrompts(promptsSince(fleet.engine, from));
    // Not stored: neither readable nor continuable.
    await assert.rejects(client.responses.retrieve(response.id), { status: 404 });
    await assert.rejects(
      client.responses.create({ model: 'qwen3', input: 'x', previous_response_id: response.id }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 400 && err.code === 'previous_response_not_found',
    );
  });

  it('a conversation carries its turns, and lists the items of each', async () => {
    const conversation = await client.conversations.create({ metadata: { topic: 'greeting' } });
    const first = await client.responses.create({
      model: 'qwen3',
      conversation: conversation.id,
      input: 'My name is Ada. <sim-answer>Nice to meet you, Ada.</sim-answer>',
    });
    assert.deepEqual(first.conversation, { id: conversation.id });
    const from = generateRequests(fleet.engine).length;
    const second = await client.responses.create({
      model: 'qwen3',
      conversation: conversation.id,
      input: 'What is my name? <sim-answer>Ada.</sim-answer>',
    });
    assert.equal(second.output_text, 'Ada.');
    const [prompt] = promptsSince(fleet.engine, from);
    assert.ok(prompt?.includes('My name is Ada.'), 'the first turn is in the second prompt');
    assert.ok(prompt?.includes('Nice to meet you, Ada.'), 'and so is the answer to it');
    const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
    const roles = items.data.map((i) => (i.type === 'message' ? i.role : i.type));
    assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant']);
  });

  it('bad requests are refused before any engine with SMG codes', async () => {
    const from = generateRequests(fleet.engine).length;
    await assert.rejects(
      client.responses.create({
        model: 'qwen3',
        input: 'x',
        previous_response_id: 'resp_missing',
      }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 400 && err.code === 'previous_response_not_found',
    );
    await assert.rejects(
      client.responses.create({ model: 'qwen3', input: 'x', conversation: 'conv_missing' }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 404 && err.code === 'conversation_not_found',
    );
    await assert.rejects(
      client.responses.create({
        model: 'qwen3',
        input: 'x',
        conversation: 'conv_x',
        previous_response_id: 'resp_x',
      }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 400 && err.code === 'mutually_exclusive_parameters',
    );
    await assert.rejects(
      client.responses.create({
        model: 'qwen3',
        input: [{ type: 'mcp_list_tools', id: 'x', server_label: 's', tools: [] }],
      }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 400 && err.code === 'convert_request_failed',
    );
    assert.equal(generateRequests(fleet.engine).length, from, 'no engine saw them');
  });
});
