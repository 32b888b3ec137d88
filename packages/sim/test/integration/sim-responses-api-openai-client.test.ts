// The official `openai` client against a simulated worker's /v1/responses, as a gateway's HTTP mode
// passes it through: `responses.create` and `responses.stream` (whose finalResponse() is rebuilt
// from the events) for text and a function call, a two-step tool loop that resends the history,
// the NotFoundError of an unknown previous_response_id, and a cut stream that rejects.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type {
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';

const TOOLS: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];
const CALL =
  'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const ASK = `Weather in Paris? <sim-answer>${CALL}</sim-answer>`;
const RESULT = '{"temp": 21} <sim-answer>Sunny, 21 °C.</sim-answer>';

let w: SimWorker;
let client: OpenAI;

function calls(output: OpenAI.Responses.ResponseOutputItem[]): ResponseFunctionToolCall[] {
  return output.filter((o): o is ResponseFunctionToolCall => o.type === 'function_call');
}

void describe('the openai client on /v1/responses', () => {
  before(async () => {
    w = await startSimWorker({ ttftMs: 0, itlMs: 0, seed: 7 });
    client = new OpenAI({ baseURL: `${w.url}/v1`, apiKey: 'sk-sim', maxRetries: 0 });
  });
  after(async () => {
    assert.equal(w.stats().running, 0);
    await w.close();
  });

  void it('create answers text; output_text is the message', async () => {
    const r = await client.responses.create({
      model: 'sim-model',
      instructions: 'Be brief.',
      input: 'Say <sim-answer>Hello, yard!</sim-answer>',
    });
    assert.match(r.id, /^resp_/);
    assert.equal(r.status, 'completed');
    assert.equal(r.output_text, 'Hello, yard!');
    assert.equal(r.usage?.output_tokens, 4, 'Hello , yard !');
  });

  void it('stream’s finalResponse() is the response create gives', async () => {
    const params = { model: 'sim-model', input: 'Tell me about the yard.', max_output_tokens: 8 };
    const whole = await client.responses.create(params);
    const stream = client.responses.stream(params);
    let deltas = '';
    stream.on('response.output_text.delta', (e) => (deltas += e.delta));
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.type);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, whole.output_text);
    assert.equal(deltas, whole.output_text);
    assert.equal(final.status, 'incomplete');
    assert.deepEqual(final.incomplete_details, { reason: 'max_output_tokens' });
    assert.deepEqual(final.usage, whole.usage);
    assert.deepEqual(seen.slice(0, 2), ['response.created', 'response.in_progress']);
    assert.equal(seen.at(-1), 'response.completed');
    assert.equal(seen.filter((t) => t === 'response.output_text.delta').length, 8);
  });

  void it('a function call, created and streamed, then the loop resent as history', async () => {
    const first = await client.responses.create({ model: 'sim-model', input: ASK, tools: TOOLS });
    const stream = client.responses.stream({ model: 'sim-model', input: ASK, tools: TOOLS });
    let args = '';
    stream.on('response.function_call_arguments.delta', (e) => (args = e.snapshot));
    const streamed = await stream.finalResponse();
    for (const r of [first, streamed]) {
      assert.equal(r.output_text, 'Checking.');
      const [c, ...more] = calls(r.output);
      assert.deepEqual(more, []);
      assert.deepEqual(
        [c?.name, c?.arguments, c?.status],
        ['get_weather', '{"city": "Paris"}', 'completed'],
      );
      assert.match(c?.call_id ?? '', /^call_/);
    }
    assert.equal(args, '{"city": "Paris"}', 'the snapshot of the argument deltas');
    const call = calls(first.output)[0];
    assert.ok(call);
    // The client keeps the history: its input, the output items, then the tool's result.
    const input: ResponseInputItem[] = [
      { role: 'user', content: ASK },
      ...(first.output as ResponseInputItem[]),
      { type: 'function_call_output', call_id: call.call_id, output: RESULT },
    ];
    const second = await client.responses.create({ model: 'sim-model', input, tools: TOOLS });
    assert.equal(second.output_text, 'Sunny, 21 °C.');
    assert.deepEqual(calls(second.output), []);
    const body = w.stats().lastRequest?.body as { input: { type?: string }[] };
    assert.deepEqual(
      body.input.map((i) => i.type ?? 'message'),
      ['message', 'message', 'function_call', 'function_call_output'],
      'what reached the engine',
    );
  });

  void it('an unknown previous_response_id is the engine’s 404', async () => {
    await assert.rejects(
      client.responses.create({ model: 'm', input: 'again', previous_response_id: 'resp_nope' }),
      (err: unknown) => err instanceof OpenAI.NotFoundError && /resp_nope/.test(err.message),
    );
  });

  void it('a stream the worker cuts short rejects finalResponse()', async () => {
    w.setFaults({ dropAfterChunks: 5, maxFires: 1 });
    const stream = client.responses.stream({ model: 'm', input: 'x', max_output_tokens: 50 });
    await assert.rejects(stream.finalResponse());
    w.setFaults({});
    await waitForStats(w, (s) => s.running === 0);
  });
});
