// The Responses framer's stream as the official clients read it, served from a loopback server:
// the `openai` client's `responses.stream()` accumulates the events into the same response the
// final event carries (every item, `output_text`), skips the trailing `[DONE]`, and rejects with
// the failure's code when the stream ends in `response.failed`; an @openai/agents run with the
// Responses model makes a function call from the stream, sends its output back, and ends with the
// second answer's text, streamed and not.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import {
  framerAndChoice,
  normalised,
  parseEvents,
  play,
  playChunks,
  whole,
  type PlayOptions,
} from '../../helpers/responses-frames.js';

/** What the server answers next, one per request, and the request bodies it was sent. */
const answers: { type: string; body: string }[] = [];
const requests: Record<string, unknown>[] = [];
let server: Server;
let client: OpenAI;

before(async () => {
  setTracingDisabled(true);
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push(JSON.parse(body) as Record<string, unknown>);
      const next = answers.shift();
      if (next === undefined) {
        res.writeHead(500).end();
        return;
      }
      res.writeHead(200, { 'content-type': next.type }).end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new OpenAI({ apiKey: 'unused', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function serveStream(frames: string): void {
  answers.push({ type: 'text/event-stream', body: frames });
}

const CALL = (city: string) =>
  `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;

/** The client's output without what its parsing helper adds (`parsed`, `parsed_arguments`). */
function unparsed(output: readonly object[]): unknown {
  return JSON.parse(
    JSON.stringify(output, (key, value: unknown) =>
      key === 'parsed' || key === 'parsed_arguments' ? undefined : value,
    ),
  );
}

const cases: { name: string; text: string; o?: PlayOptions }[] = [
  { name: 'text', text: 'Just text, no markup.' },
  { name: 'reasoning and text', text: '<think>weigh it</think>\n\nThe answer.' },
  { name: 'text and two calls', text: `Checking.\n${CALL('Paris')}\n${CALL('Lyon')}` },
  {
    name: 'a length cut',
    text: '<think>long</think>\n\nThe answer is cu',
    o: { finishReason: 'length' },
  },
];

void describe('the Responses stream read by the openai client', () => {
  for (const k of cases) {
    void it(`responses.stream() accumulates ${k.name} into the final response`, async () => {
      for (const size of [1, 4]) {
        const frames = await play(k.text, size, k.o);
        const last = parseEvents(frames).at(-1)?.response as Record<string, unknown>;
        serveStream(frames);
        const stream = client.responses.stream({ model: 'm', input: 'hi' });
        let argsSnapshot = '';
        stream.on('response.function_call_arguments.delta', (e) => (argsSnapshot = e.snapshot));
        const final = await stream.finalResponse();
        // What the client built from the deltas is what the final event said.
        assert.deepEqual(unparsed(final.output), last.output, `chunk size ${size}`);
        assert.equal(final.status, k.o?.finishReason === 'length' ? 'incomplete' : 'completed');
        // `output_text` and `output_parsed` are the client's own conveniences.
        const {
          output_text: text,
          output_parsed: _,
          ...rest
        } = final as unknown as Record<string, unknown>;
        const built = { ...rest, output: unparsed(final.output) };
        assert.deepEqual(normalised(built), normalised(whole(k.text, k.o)));
        const message = final.output.find((i) => i.type === 'message');
        const shown = message?.type === 'message' ? message.content[0] : undefined;
        assert.equal(text, shown?.type === 'output_text' ? shown.text : '');
        const calls = final.output.filter((i) => i.type === 'function_call');
        if (calls.length > 0) assert.equal(argsSnapshot, calls.at(-1)?.arguments);
      }
    });
  }

  void it('responses.create({stream: true}) yields every event and skips [DONE]', async () => {
    const frames = await play('<think>hm</think>\n\nYes.', 2);
    serveStream(frames);
    const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    assert.deepEqual(
      types,
      parseEvents(frames).map((e) => e.type),
    );
  });

  void it('a store that refuses makes finalResponse() reject with its code', async () => {
    const refuse = () => Promise.reject(new GatewayError('history_store_unavailable', 'down'));
    serveStream(await play('Yes.', 2, { finish: refuse }));
    const stream = client.responses.stream({ model: 'm', input: 'hi' });
    let failed: string | undefined;
    stream.on('response.failed', (e) => (failed = e.response.error?.code));
    await assert.rejects(stream.finalResponse(), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.code, 'history_store_unavailable');
      assert.equal(err.message, 'down');
      return true;
    });
    assert.equal(failed, 'history_store_unavailable');
  });

  void it('an engine failure mid-stream makes finalResponse() reject as a server_error', async () => {
    const { framer, c } = framerAndChoice();
    serveStream(playChunks(framer, c, 'Half an ans', 3) + framer.failure('Stream error: gone'));
    await assert.rejects(
      client.responses.stream({ model: 'm', input: 'hi' }).finalResponse(),
      (err: unknown) => err instanceof OpenAI.APIError && err.code === 'server_error',
    );
  });
});

void describe('the Responses stream read by @openai/agents', () => {
  const weather = () =>
    tool({
      name: 'get_weather',
      description: 'The weather in a city.',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => `Sunny in ${city}`,
    });

  for (const streamed of [true, false]) {
    void it(`runs a function call and answers (${streamed ? 'streamed' : 'whole'})`, async () => {
      const first = `<think>need data</think>\n\n${CALL('Paris')}`;
      const second = 'It is sunny in Paris.';
      if (streamed) {
        serveStream(await play(first, 3));
        serveStream(await play(second, 3));
      } else {
        for (const text of [first, second])
          answers.push({ type: 'application/json', body: JSON.stringify(whole(text)) });
      }
      const agent = new Agent({
        name: 'weather',
        model: new OpenAIResponsesModel(client, 'm'),
        tools: [weather()],
      });
      requests.length = 0;
      let output: unknown;
      if (streamed) {
        const result = await run(agent, 'Weather in Paris?', { stream: true });
        for await (const _ of result) void _;
        await result.completed;
        output = result.finalOutput;
      } else output = (await run(agent, 'Weather in Paris?')).finalOutput;
      assert.equal(output, second);
      // The second request carries the call the first answer made, and the tool's output for it.
      const input = requests[1]?.input as Record<string, unknown>[];
      const call = input.find((i) => i.type === 'function_call');
      const result = input.find((i) => i.type === 'function_call_output');
      assert.equal(call?.name, 'get_weather');
      assert.deepEqual(JSON.parse(call?.arguments as string), { city: 'Paris' });
      assert.match(call?.call_id as string, /^call_/);
      assert.equal(result?.call_id, call?.call_id);
      assert.match(JSON.stringify(result?.output), /Sunny in Paris/);
    });
  }
});
