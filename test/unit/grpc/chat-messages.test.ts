// Chat messages in every shape the OpenAI chat API allows, made into what a chat template renders,
// and rendered through Qwen3's real template: a tool-call-only assistant turn with null content
// (what every agent loop sends back), tool results as strings or parts, arguments as JSON
// strings, `name` fields, and the shapes no template can render refused with a 400.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { templateMessages } from '../../../src/grpc/chat-messages.js';
import type { ModelTokenizer } from '../../../src/tokenizer/types.js';
import { loadQwen3 } from '../tokenizer/qwen3-fixture.js';

function refused(code: string, messages: unknown[], field: RegExp): void {
  assert.throws(
    () => templateMessages({ messages }),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, String(err));
      assert.equal(err.code, code);
      assert.equal(err.status, 400);
      assert.match(err.message, field);
      return true;
    },
  );
}

const CALL = {
  id: 'call_1',
  type: 'function',
  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
};

void describe('chat messages for the template', () => {
  let qwen3: ModelTokenizer;
  before(async () => {
    qwen3 = await loadQwen3();
  });

  const render = (messages: unknown[]): string =>
    qwen3.renderChat({ messages: templateMessages({ messages }), addGenerationPrompt: true });

  void it('renders a tool loop whose assistant turn has content null, as Qwen3 expects', () => {
    const text = render([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [CALL], refusal: null },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 20}' },
    ]);
    assert.equal(
      text,
      '<|im_start|>user\nWeather in Paris?<|im_end|>\n' +
        '<|im_start|>assistant\n<tool_call>\n' +
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\n{"temp": 20}\n</tool_response><|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
  });

  void it('gives absent and null assistant content the same empty string', () => {
    const absent = templateMessages({ messages: [{ role: 'assistant', tool_calls: [CALL] }] });
    const nul = templateMessages({
      messages: [{ role: 'assistant', content: null, tool_calls: [CALL] }],
    });
    assert.deepEqual(absent, nul);
    assert.equal(absent[0]?.content, '');
  });

  void it('renders tool results sent as text parts, and parallel results in one user turn', () => {
    const text = render([
      { role: 'user', content: [{ type: 'text', text: 'Two cities?' }] },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          CALL,
          { ...CALL, id: 'call_2', function: { ...CALL.function, arguments: '' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
      { role: 'tool', tool_call_id: 'call_2', name: 'get_weather', content: 'rain' },
    ]);
    assert.match(
      text,
      /Checking both\.\n<tool_call>\n\{"name": "get_weather", "arguments": \{"city": "Paris"\}\}/,
    );
    // Empty arguments are an empty object, never `"arguments": }`.
    assert.match(text, /\{"name": "get_weather", "arguments": \{\}\}/);
    assert.match(
      text,
      /<\|im_start\|>user\n<tool_response>\nsunny\n<\/tool_response>\n<tool_response>\nrain\n<\/tool_response><\|im_end\|>\n/,
    );
  });

  void it('keeps arguments that are not JSON as the model wrote them', () => {
    const [m] = templateMessages({
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ ...CALL, function: { name: 'f', arguments: '{not json' } }],
        },
      ],
    });
    const call = (m?.tool_calls as { function: { arguments: unknown } }[])[0];
    assert.equal(call?.function.arguments, '{not json');
  });

  void it('keeps each role to its own fields, and reads vLLM-style `reasoning` back', () => {
    const [user, assistant] = templateMessages({
      messages: [
        { role: 'user', content: 'Hi', name: 'ada', audio: null },
        { role: 'assistant', content: 'Hello', reasoning: 'greet back', annotations: [] },
      ],
    });
    assert.deepEqual(user, { role: 'user', content: 'Hi', name: 'ada' });
    assert.deepEqual(assistant, {
      role: 'assistant',
      content: 'Hello',
      reasoning_content: 'greet back',
    });
  });

  void it('reads refusal parts as text, and leaves the client objects unchanged', () => {
    const sent = {
      role: 'assistant',
      content: [{ type: 'refusal', refusal: 'I cannot.' }],
      tool_calls: [CALL],
    };
    const [m] = templateMessages({ messages: [sent] });
    assert.deepEqual(m?.content, [{ type: 'text', text: 'I cannot.' }]);
    assert.equal(CALL.function.arguments, '{"city":"Paris"}');
    assert.equal(sent.tool_calls[0], CALL);
  });

  void it('refuses shapes a template cannot render, naming the field', () => {
    refused('invalid_request_parameters', [{ role: 'robot', content: 'x' }], /messages\[0\]\.role/);
    refused(
      'invalid_request_parameters',
      [{ role: 'user', content: null }],
      /messages\[0\]\.content/,
    );
    refused('invalid_request_parameters', [{ role: 'user' }], /messages\[0\]\.content/);
    refused(
      'invalid_request_parameters',
      [{ role: 'tool', content: 'x' }],
      /messages\[0\]\.tool_call_id/,
    );
    refused(
      'invalid_request_parameters',
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', function: {} }] }],
      /messages\[0\]\.tool_calls\[0\]\.function\.name/,
    );
    refused(
      'invalid_request_parameters',
      [{ role: 'assistant', content: null, tool_calls: {} }],
      /messages\[0\]\.tool_calls/,
    );
    refused(
      'invalid_request_parameters',
      [{ role: 'user', content: [{ type: 'text', text: 7 }] }],
      /messages\[0\]\.content\[0\]\.text/,
    );
    refused(
      'multimodal_not_supported',
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
      /image_url/,
    );
    // A role named like an Object.prototype key is just an unknown role.
    refused('invalid_request_parameters', [{ role: 'constructor', content: 'x' }], /role/);
  });
});
