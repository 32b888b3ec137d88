// The Responses stream of a gRPC answer, reassembled as a client would, equals the whole
// response for every way the engine may cut the text into chunks: sequence numbers count from 0,
// items open one at a time (reasoning, message, function calls in generation order), whitespace
// between reasoning and a call opens no message, the token cap makes the response incomplete,
// the final event's response is what the events built and what was handed to the store, and a
// store or engine failure ends the stream with `response.failed` then `error`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import {
  framerAndChoice,
  normalised,
  parseEvents,
  play,
  playChunks,
  whole,
  type Event,
  type PlayOptions,
} from '../../helpers/responses-frames.js';

type Item = Record<string, unknown> & { content?: Record<string, unknown>[] };

/** Rebuilds the output items from the events, checking their grammar; returns them and the end. */
function reassemble(events: Event[]): { items: Item[]; last: Event } {
  events.forEach((e, i) => assert.equal(e.sequence_number, i, 'sequence numbers count from 0'));
  assert.deepEqual(
    events.slice(0, 2).map((e) => e.type),
    ['response.created', 'response.in_progress'],
  );
  for (const e of events.slice(0, 2)) {
    const r = e.response as Record<string, unknown>;
    assert.equal(r.status, 'in_progress');
    assert.deepEqual(r.output, []);
  }
  const items: Item[] = [];
  let open: Item | undefined;
  const here = (e: Event): Item => {
    assert.ok(open, `${e.type} inside an item`);
    assert.equal(e.output_index, items.length - 1);
    assert.equal(e.item_id, open.id);
    return open;
  };
  for (const e of events.slice(2, -1)) {
    switch (e.type) {
      case 'response.output_item.added': {
        assert.equal(open, undefined, 'one item open at a time');
        assert.equal(e.output_index, items.length);
        open = structuredClone(e.item) as Item;
        assert.equal(open.status, 'in_progress');
        items.push(open);
        break;
      }
      case 'response.content_part.added':
        assert.equal(e.content_index, 0);
        here(e).content?.push(structuredClone(e.part) as Record<string, unknown>);
        break;
      case 'response.output_text.delta':
      case 'response.reasoning_text.delta': {
        const item = here(e);
        assert.equal(item.type, e.type === 'response.output_text.delta' ? 'message' : 'reasoning');
        if (item.type === 'message') assert.deepEqual(e.logprobs, []);
        const part = item.content?.[0] as Record<string, unknown>;
        part.text = `${part.text as string}${e.delta as string}`;
        break;
      }
      case 'response.function_call_arguments.delta': {
        const item = here(e);
        assert.equal(item.type, 'function_call');
        item.arguments = `${item.arguments as string}${e.delta as string}`;
        break;
      }
      case 'response.output_text.done':
      case 'response.reasoning_text.done':
        assert.equal(e.text, here(e).content?.[0]?.text);
        break;
      case 'response.function_call_arguments.done':
        assert.equal(e.arguments, here(e).arguments);
        assert.equal(e.name, here(e).name);
        break;
      case 'response.content_part.done':
        assert.deepEqual(e.part, here(e).content?.[0]);
        break;
      case 'response.output_item.done': {
        assert.ok(open);
        assert.equal(e.output_index, items.length - 1);
        const done = e.item as Item;
        assert.notEqual(done.status, 'in_progress');
        assert.deepEqual(done, { ...open, status: done.status }, 'the done item is what was built');
        items[items.length - 1] = done;
        open = undefined;
        break;
      }
      default:
        assert.fail(`unexpected ${e.type}`);
    }
  }
  assert.equal(open, undefined, 'every item is closed');
  return { items, last: events.at(-1) as Event };
}

const CALL = (city: string) =>
  `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;

const DEEPSEEK_CALL =
  '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';

const answers: { name: string; text: string; o?: PlayOptions; types: string[] }[] = [
  { name: 'text only', text: 'Just text, no markup.', types: ['message'] },
  {
    name: 'text of a model without parsers',
    text: '<think>not parsed</think> so all text.',
    o: { parsed: false },
    types: ['message'],
  },
  {
    name: 'reasoning then text',
    text: '<think>weigh it</think>\n\nThe answer.',
    types: ['reasoning', 'message'],
  },
  {
    name: 'reasoning then a call',
    text: `<think>need data</think>\n\n${CALL('Paris')}`,
    types: ['reasoning', 'function_call'],
  },
  {
    name: 'reasoning, the whitespace a parser passes on, then a call',
    text: `<think>need data</think>\n\n${DEEPSEEK_CALL}`,
    o: { toolParser: 'deepseek' },
    types: ['reasoning', 'function_call'],
  },
  {
    name: 'text then two calls',
    text: `Checking.\n${CALL('Paris')}\n${CALL('Lyon')}`,
    types: ['message', 'function_call', 'function_call'],
  },
  {
    name: 'a length cut',
    text: '<think>long</think>\n\nThe answer is cut sh',
    o: { finishReason: 'length' },
    types: ['reasoning', 'message'],
  },
];

void describe('Responses stream framer', () => {
  for (const a of answers) {
    void it(`streams ${a.name} as its whole response, however cut`, async () => {
      const expected = normalised(whole(a.text, a.o));
      assert.deepEqual(
        (expected.output as Item[]).map((i) => i.type),
        a.types,
      );
      for (let size = 1; size <= 7; size++) {
        const { items, last } = reassemble(parseEvents(await play(a.text, size, a.o)));
        const cut = a.o?.finishReason === 'length';
        assert.equal(last.type, cut ? 'response.incomplete' : 'response.completed');
        const response = last.response as Record<string, unknown>;
        assert.deepEqual(response.output, items, 'the final output is what the events built');
        assert.deepEqual(normalised(response), expected, `chunk size ${size}`);
      }
    });
  }

  void it('text after a call is a message after it, without the whitespace before the call', async () => {
    // The whole body cannot tell where its text was: it keeps all of it, before the call.
    const text = `<think>a</think>\n\n${DEEPSEEK_CALL}\n\nDone.`;
    for (let size = 1; size <= 7; size++) {
      const { items } = reassemble(parseEvents(await play(text, size, { toolParser: 'deepseek' })));
      assert.deepEqual(
        items.map((i) => i.type),
        ['reasoning', 'function_call', 'message'],
      );
      assert.equal(items[2]?.content?.[0]?.text, '\n\nDone.');
    }
  });

  void it('a cut answer is incomplete, and so is the item the cap cut', () => {
    const r = whole('<think>long</think>\n\nThe answer is cut sh', { finishReason: 'length' });
    assert.equal(r.status, 'incomplete');
    assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
    const output = r.output as Item[];
    assert.deepEqual(
      output.map((i) => i.status),
      ['completed', 'incomplete'],
    );
  });

  void it('a response with tool calls is completed and echoes the request, usage counted', () => {
    const r = whole(`Checking.\n${CALL('Paris')}`);
    assert.equal(r.status, 'completed');
    assert.equal(r.error, null);
    assert.equal(r.incomplete_details, null);
    assert.equal(r.object, 'response');
    assert.equal(r.tool_choice, 'auto');
    assert.equal(r.store, true);
    const call = (r.output as Item[])[1];
    assert.deepEqual(JSON.parse(call?.arguments as string), { city: 'Paris' });
    assert.equal(call?.status, 'completed');
    const output = `Checking.\n${CALL('Paris')}`.length;
    assert.deepEqual(r.usage, {
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 3, cache_write_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 9 + output,
    });
  });

  void it('hands the store the response its completed event carries, before framing it', async () => {
    const stored: Record<string, unknown>[] = [];
    const frames = await play('<think>hm</think>\n\nYes.', 3, {
      finish: (response) => {
        stored.push(structuredClone(response));
        return Promise.resolve();
      },
    });
    assert.equal(stored.length, 1);
    const last = parseEvents(frames).at(-1);
    assert.equal(last?.type, 'response.completed');
    assert.deepEqual(last?.response, stored[0]);
  });

  void it('a store that refuses ends the stream failed with its code, never completed', async () => {
    const refuse = () =>
      Promise.reject(new GatewayError('history_store_unavailable', 'the store is down'));
    const events = parseEvents(await play('<think>hm</think>\n\nYes.', 2, { finish: refuse }));
    events.forEach((e, i) => assert.equal(e.sequence_number, i));
    assert.equal(
      events.some((e) => e.type === 'response.completed'),
      false,
    );
    const [failed, error] = events.slice(-2);
    assert.equal(failed?.type, 'response.failed');
    const response = failed?.response as Record<string, unknown>;
    assert.equal(response.status, 'failed');
    assert.deepEqual(response.error, {
      code: 'history_store_unavailable',
      message: 'the store is down',
    });
    assert.deepEqual(
      (response.output as Item[]).map((i) => [i.type, i.status]),
      [
        ['reasoning', 'completed'],
        ['message', 'completed'],
      ],
    );
    assert.deepEqual(error, {
      type: 'error',
      sequence_number: events.length - 1,
      code: 'history_store_unavailable',
      message: 'the store is down',
      param: null,
      error: {
        type: 'Service Unavailable',
        code: 'history_store_unavailable',
        message: 'the store is down',
        param: null,
      },
    });
  });

  void it('a store that throws anything else is a server_error', async () => {
    const events = parseEvents(
      await play('Yes.', 2, { finish: () => Promise.reject(new Error('boom')) }),
    );
    const failed = events.at(-2)?.response as Record<string, unknown>;
    assert.deepEqual(failed.error, {
      code: 'server_error',
      message: 'Storing the response failed: boom',
    });
  });

  void it('an engine failure before any output still opens the response, then fails it', () => {
    const { framer } = framerAndChoice();
    const events = parseEvents(framer.failure('Stream error: boom'));
    assert.deepEqual(
      events.map((e) => [e.type, e.sequence_number]),
      [
        ['response.created', 0],
        ['response.in_progress', 1],
        ['response.failed', 2],
        ['error', 3],
      ],
    );
    const response = events[2]?.response as Record<string, unknown>;
    assert.equal(response.status, 'failed');
    assert.deepEqual(response.error, { code: 'server_error', message: 'Stream error: boom' });
    assert.deepEqual(response.output, []);
    assert.equal(events[3]?.code, 'server_error');
    assert.equal(events[3]?.message, 'Stream error: boom');
  });

  void it('an engine failure mid-message fails the response with the partial item', () => {
    const { framer, c } = framerAndChoice();
    const frames = playChunks(framer, c, 'Half an ans', 4) + framer.failure('Stream error: gone');
    const events = parseEvents(frames);
    events.forEach((e, i) => assert.equal(e.sequence_number, i));
    const response = events.at(-2)?.response as Record<string, unknown>;
    assert.equal(events.at(-2)?.type, 'response.failed');
    const [item] = response.output as Item[];
    assert.equal(item?.status, 'incomplete');
    assert.equal(item?.content?.[0]?.text, 'Half an ans');
    assert.deepEqual((response.usage as Record<string, unknown>).output_tokens, 11);
  });
});
