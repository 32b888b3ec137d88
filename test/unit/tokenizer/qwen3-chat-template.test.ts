// Qwen3's own chat template rendered through the ModelTokenizer, against the strings its source
// says it produces: plain turns, the generation prompt, tools (tojson), tool calls whose
// arguments arrive as JSON strings, chat_template_kwargs, content parts, and template errors.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ChatTemplateError, type ModelTokenizer } from '../../../src/tokenizer/types.js';
import { templateMessages } from '../../../src/grpc/chat-messages.js';
import { loadQwen3 } from './qwen3-fixture.js';

const SYSTEM = { role: 'system', content: 'You are helpful.' };
const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

void describe('Qwen3 chat template', () => {
  let tok: ModelTokenizer;
  before(async () => {
    tok = await loadQwen3();
  });

  it('encodes to the ids Qwen3 gives', () => {
    assert.deepEqual(tok.encode('Hello world', false), [9707, 1879]);
    // Qwen3 adds no BOS, so special tokens change nothing here.
    assert.deepEqual(tok.encode('Hello world', true), [9707, 1879]);
    assert.equal(tok.decode([9707, 1879], false), 'Hello world');
    assert.equal(tok.hasChatTemplate, true);
  });

  it('renders system and user turns and the generation prompt', () => {
    const text = tok.renderChat({
      messages: [SYSTEM, { role: 'user', content: 'Hi' }],
      addGenerationPrompt: true,
    });
    assert.equal(
      text,
      '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
    const ids = tok.encode(text, false);
    assert.equal(ids[0], tok.tokenToId('<|im_start|>'));
  });

  it('passes chat_template_kwargs: enable_thinking false adds the empty think block', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    const base = tok.renderChat({ messages, addGenerationPrompt: true });
    const off = tok.renderChat({
      messages,
      addGenerationPrompt: true,
      chatTemplateKwargs: { enable_thinking: false },
    });
    assert.equal(off, base + '<think>\n\n</think>\n\n');
    const on = tok.renderChat({
      messages,
      addGenerationPrompt: true,
      chatTemplateKwargs: { enable_thinking: true },
    });
    assert.equal(on, base);
  });

  it('renders tools with tojson as Python json.dumps does', () => {
    const text = tok.renderChat({
      messages: [SYSTEM, { role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      addGenerationPrompt: true,
    });
    assert.equal(
      text,
      '<|im_start|>system\nYou are helpful.\n\n# Tools\n\nYou may call one or more functions to ' +
        'assist with the user query.\n\nYou are provided with function signatures within ' +
        '<tools></tools> XML tags:\n<tools>\n' +
        '{"type": "function", "function": {"name": "get_weather", "description": "Get the ' +
        'weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, ' +
        '"required": ["city"]}}}\n</tools>\n\nFor each function call, return a json object with ' +
        'function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n' +
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('renders tool-call arguments sent as a JSON string as the object they encode', () => {
    const messages = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 20}' },
    ];
    const text = tok.renderChat({
      messages: templateMessages({ messages }),
      addGenerationPrompt: true,
    });
    assert.equal(
      text,
      '<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n' +
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\n{"temp": 20}\n</tool_response><|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
    // The caller's message is not changed by the parse.
    const call = (messages[1] as { tool_calls: { function: { arguments: unknown } }[] })
      .tool_calls[0];
    assert.equal(call?.function.arguments, '{"city":"Paris"}');
  });

  it('flattens OpenAI text parts for a template that reads content as a string', () => {
    const text = tok.renderChat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello' },
            { type: 'text', text: 'world' },
          ],
        },
      ],
      addGenerationPrompt: false,
    });
    assert.equal(text, '<|im_start|>user\nHello\nworld<|im_end|>\n');
  });

  it('continues a final assistant message instead of opening a new turn', () => {
    const text = tok.renderChat({
      messages: [
        { role: 'user', content: 'Count' },
        { role: 'assistant', content: 'One, two,' },
      ],
      addGenerationPrompt: false,
      continueFinalMessage: true,
    });
    assert.equal(text, '<|im_start|>user\nCount<|im_end|>\n<|im_start|>assistant\nOne, two,');
  });

  it('turns a render failure into a ChatTemplateError', () => {
    // Qwen3 calls content.startswith on every user message; null content cannot.
    assert.throws(
      () =>
        tok.renderChat({ messages: [{ role: 'user', content: null }], addGenerationPrompt: true }),
      ChatTemplateError,
    );
  });
});
