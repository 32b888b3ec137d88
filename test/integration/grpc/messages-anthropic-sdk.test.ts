// The Anthropic Messages API served natively in gRPC mode, driven by the official
// `@anthropic-ai/sdk`: `messages.create` and `messages.stream` (text, thinking, tool_use blocks and
// the event sequence), tool_choice, stop sequences and max_tokens, `count_tokens`, and a two-step
// tool loop. The simulated Qwen3 engine answers its prompt's last `<sim-answer>` directive; the
// gateway renders the conversation with Qwen3's template and parses the answer with its parsers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { generateRequests, startQwenFleet, type QwenFleet } from '../../helpers/grpc.js';

let fleet: QwenFleet;
let engine: SimWorker;
let gateway: Gateway;
let client: Anthropic;

before(async () => {
  fleet = await startQwenFleet();
  ({ engine, gateway } = fleet);
  client = new Anthropic({ apiKey: 'unused', baseURL: gateway.url, maxRetries: 0 });
});

after(async () => {
  await fleet.close();
});

const saying = (answer: string): Anthropic.MessageParam[] => [
  { role: 'user', content: `Please answer. <sim-answer>${answer}</sim-answer>` },
];

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

/** The last prompt the engine was sent, as rendered by the gateway. */
function lastPrompt(): string {
  const sent = generateRequests(engine).at(-1)?.tokenized as { original_text: string };
  return sent.original_text;
}

describe('Messages API in gRPC mode with the Anthropic SDK', () => {
  it('messages.create answers a text message with usage and end_turn', async () => {
    const msg = await client.messages.create({
      model: 'qwen3',
      max_tokens: 64,
      system: 'Be brief.',
      messages: saying('Hello there.'),
    });
    assert.match(msg.id, /^msg_[0-9a-f]{32}$/);
    assert.equal(msg.type, 'message');
    assert.equal(msg.role, 'assistant');
    assert.equal(msg.model, 'qwen3');
    assert.deepEqual(msg.content, [{ type: 'text', text: 'Hello there.' }]);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.stop_sequence, null);
    const count = await client.messages.countTokens({
      model: 'qwen3',
      system: 'Be brief.',
      messages: saying('Hello there.'),
    });
    assert.equal(msg.usage.input_tokens, count.input_tokens);
    assert.ok(msg.usage.output_tokens > 0);
    assert.equal(msg.usage.cache_read_input_tokens, 0);
    assert.match(
      lastPrompt(),
      /^<\|im_start\|>system\nBe brief\.<\|im_end\|>\n<\|im_start\|>user\n/,
    );
  });

  it('messages.stream sends the whole event sequence, and its final message matches create', async () => {
    const stream = client.messages.stream({
      model: 'qwen3',
      max_tokens: 64,
      messages: saying('Streamed words here.'),
    });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        text += event.delta.text;
    }
    const final = await stream.finalMessage();
    assert.equal(text, 'Streamed words here.');
    assert.deepEqual(final.content, [{ type: 'text', text: 'Streamed words here.' }]);
    assert.equal(final.stop_reason, 'end_turn');
    assert.ok(final.usage.input_tokens > 0 && final.usage.output_tokens > 0);
    // One block; deltas between its start and stop; message_delta before message_stop.
    const deltas = types.filter((t) => t === 'content_block_delta').length;
    assert.ok(deltas >= 2, 'text arrives token by token');
    assert.deepEqual(
      types.filter((t) => t !== 'content_block_delta'),
      [
        'message_start',
        'content_block_start',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
  });

  it('tools: a call is a tool_use block with a toolu_ id and its input, whole and streamed', async () => {
    const body = {
      model: 'qwen3',
      max_tokens: 128,
      tools: [WEATHER],
      messages: saying(`Checking.\n${CALL}`),
    };
    const msg = await client.messages.create(body);
    assert.equal(msg.stop_reason, 'tool_use');
    assert.equal(msg.content.length, 2);
    assert.deepEqual(msg.content[0], { type: 'text', text: 'Checking.\n' });
    const use = msg.content[1];
    assert.ok(use?.type === 'tool_use');
    assert.match(use.id, /^toolu_[0-9a-f]{24}$/);
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'Paris' });

    const stream = client.messages.stream(body);
    const blocks: string[] = [];
    let json = '';
    for await (const event of stream) {
      if (event.type === 'content_block_start') blocks.push(event.content_block.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
        json += event.delta.partial_json;
    }
    const final = await stream.finalMessage();
    assert.deepEqual(blocks, ['text', 'tool_use']);
    assert.deepEqual(JSON.parse(json), { city: 'Paris' });
    assert.equal(final.stop_reason, 'tool_use');
    const streamedUse = final.content[1];
    assert.ok(streamedUse?.type === 'tool_use');
    assert.deepEqual(streamedUse.input, { city: 'Paris' });
    assert.match(streamedUse.id, /^toolu_/);
  });

  it('a two-step tool loop: the tool_result turn is rendered as Qwen3 expects and answered', async () => {
    const first = await client.messages.create({
      model: 'qwen3',
      max_tokens: 128,
      tools: [WEATHER],
      messages: saying(CALL),
    });
    const use = first.content.find((b) => b.type === 'tool_use');
    assert.ok(use?.type === 'tool_use');
    const messages: Anthropic.MessageParam[] = [
      ...saying(CALL),
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: use.id,
            content: 'sunny <sim-answer>It is sunny.</sim-answer>',
          },
          { type: 'text', text: 'Thanks!' },
        ],
      },
    ];
    for (const stream of [false, true]) {
      const second = stream
        ? await client.messages
            .stream({ model: 'qwen3', max_tokens: 64, tools: [WEATHER], messages })
            .finalMessage()
        : await client.messages.create({
            model: 'qwen3',
            max_tokens: 64,
            tools: [WEATHER],
            messages,
          });
      assert.deepEqual(second.content, [{ type: 'text', text: 'It is sunny.' }]);
      assert.equal(second.stop_reason, 'end_turn');
      const prompt = lastPrompt();
      assert.ok(
        prompt.includes(
          `<|im_start|>assistant\n${CALL}<|im_end|>\n<|im_start|>user\n<tool_response>\nsunny <sim-answer>It is sunny.</sim-answer>\n</tool_response><|im_end|>\n<|im_start|>user\nThanks!<|im_end|>\n<|im_start|>assistant\n`,
        ),
        `the call, its result, then the text that followed it:\n${prompt}`,
      );
    }
  });

  it('tool_choice any and tool force a call; none hides the tools', async () => {
    const any = await client.messages.create({
      model: 'qwen3',
      max_tokens: 128,
      tools: [WEATHER],
      tool_choice: { type: 'any' },
      messages: saying('ignored'),
    });
    assert.equal(any.stop_reason, 'tool_use');
    assert.equal(any.content.at(-1)?.type, 'tool_use');
    const named = await client.messages.create({
      model: 'qwen3',
      max_tokens: 128,
      tools: [WEATHER],
      tool_choice: { type: 'tool', name: 'get_weather' },
      messages: saying('ignored'),
    });
    const forced = named.content.find((b) => b.type === 'tool_use');
    assert.ok(forced?.type === 'tool_use');
    assert.equal(forced.name, 'get_weather');
    const none = await client.messages.create({
      model: 'qwen3',
      max_tokens: 128,
      tools: [WEATHER],
      tool_choice: { type: 'none' },
      messages: saying(CALL),
    });
    assert.deepEqual(none.content, [{ type: 'text', text: CALL }]);
    assert.ok(!lastPrompt().includes('# Tools'), 'no tools shown to the template');
  });

  it('thinking enabled: reasoning is a thinking block, streamed as thinking_delta', async () => {
    const answer = '<think>\nThe user wants brevity.\n</think>\n\nShort answer.';
    const body = {
      model: 'qwen3',
      max_tokens: 128,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      messages: saying(answer),
    };
    const msg = await client.messages.create(body);
    assert.deepEqual(
      msg.content.map((b) => b.type),
      ['thinking', 'text'],
    );
    const thinking = msg.content[0];
    assert.ok(thinking?.type === 'thinking');
    assert.match(thinking.thinking, /The user wants brevity\./);
    assert.equal(msg.content[1]?.type === 'text' && msg.content[1].text.trim(), 'Short answer.');

    const stream = client.messages.stream(body);
    let thought = '';
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta')
        thought += event.delta.thinking;
    const final = await stream.finalMessage();
    assert.match(thought, /The user wants brevity\./);
    assert.deepEqual(
      final.content.map((b) => b.type),
      ['thinking', 'text'],
    );
    // Without `thinking` the text keeps the model's tags, as SMG answers it.
    const { thinking: _omitted, ...unthinking } = body;
    const plain = await client.messages.create(unthinking);
    assert.deepEqual(plain.content, [{ type: 'text', text: answer }]);
    const off = await client.messages.create({ ...body, thinking: { type: 'disabled' } });
    assert.ok(off.content.length > 0);
    assert.ok(lastPrompt().endsWith('<think>\n\n</think>\n\n'), 'disabled turns the toggle off');
  });

  it('stop_sequences and max_tokens end the message with their stop reasons', async () => {
    const stopped = await client.messages.create({
      model: 'qwen3',
      max_tokens: 64,
      stop_sequences: ['STOP'],
      messages: saying('one two STOP three'),
    });
    assert.equal(stopped.stop_reason, 'stop_sequence');
    assert.equal(stopped.stop_sequence, 'STOP');
    assert.deepEqual(stopped.content, [{ type: 'text', text: 'one two ' }]);
    const cut = await client.messages.create({
      model: 'qwen3',
      max_tokens: 2,
      messages: saying('one two three four five six'),
    });
    assert.equal(cut.stop_reason, 'max_tokens');
    assert.equal(cut.usage.output_tokens, 2);
    const streamed = await client.messages
      .stream({
        model: 'qwen3',
        max_tokens: 64,
        stop_sequences: ['STOP'],
        messages: saying('one two STOP three'),
      })
      .finalMessage();
    assert.equal(streamed.stop_reason, 'stop_sequence');
    assert.equal(streamed.stop_sequence, 'STOP');
  });
});
