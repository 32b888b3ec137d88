// A Responses request's input items become the chat messages the template renders: a tool loop's
// calls and outputs keep their turns, reasoning rides on its assistant turn, developer rules are
// system text, and items a local model cannot take are a 400 before any worker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { chatMessagesOfInput } from '../../../src/grpc/responses/responses-input.js';
import { chatBodyOf } from '../../../src/grpc/responses/responses-plan.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof GatewayError ? err.code : 'other';
  }
  return undefined;
};

describe('Responses input as chat messages', () => {
  it('a string input is one user turn after the instructions', () => {
    assert.deepEqual(chatMessagesOfInput('Be brief.', 'hi'), [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('a two-step tool loop: parallel calls are one assistant turn, outputs follow them', () => {
    const messages = chatMessagesOfInput(undefined, [
      { role: 'developer', content: 'Use tools.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'think' }],
      },
      { type: 'function_call', call_id: 'call_a', name: 'get', arguments: '{"city":"Oslo"}' },
      { type: 'function_call', call_id: 'call_b', name: 'get', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_a', output: '3C' },
      {
        type: 'function_call_output',
        call_id: 'call_b',
        output: [{ type: 'input_text', text: '20C' }],
      },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Cold and warm.' }],
      },
      { role: 'user', content: 'thanks' },
    ]);
    assert.deepEqual(messages, [
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'think',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'get', arguments: '{"city":"Oslo"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'get', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '3C' },
      { role: 'tool', tool_call_id: 'call_b', content: '20C' },
      { role: 'assistant', content: 'Cold and warm.' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('an assistant text then its calls stay one turn; text after calls opens a new one', () => {
    const messages = chatMessagesOfInput(undefined, [
      { role: 'user', content: 'go' },
      { type: 'message', role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'message', role: 'assistant', content: 'More.' },
    ]);
    assert.equal(messages.length, 3);
    assert.equal(messages[1]?.content, 'Looking.');
    assert.equal((messages[1]?.tool_calls as unknown[]).length, 1);
    assert.deepEqual(messages[2], { role: 'assistant', content: 'More.' });
  });

  it('refuses what a local model cannot take, with the code SMG uses', () => {
    assert.equal(
      codeOf(() => chatMessagesOfInput(undefined, [{ type: 'mcp_call', id: 'x' }])),
      'convert_request_failed',
    );
    assert.equal(
      codeOf(() => chatMessagesOfInput(undefined, [{ role: 'tool', content: 'x' }])),
      'convert_request_failed',
    );
    assert.equal(
      codeOf(() =>
        chatMessagesOfInput(undefined, [
          { role: 'user', content: [{ type: 'input_image', image_url: 'data:,' }] },
        ]),
      ),
      'multimodal_not_supported',
    );
    assert.equal(
      codeOf(() => chatMessagesOfInput('only rules', [])),
      'convert_request_failed',
    );
  });

  it('a turn of only function outputs is served (SMG refuses it)', () => {
    const messages = chatMessagesOfInput(undefined, [
      { type: 'function_call_output', call_id: 'call_a', output: '3C' },
    ]);
    assert.deepEqual(messages, [{ role: 'tool', tool_call_id: 'call_a', content: '3C' }]);
  });
});

describe('the chat request a Responses body means', () => {
  it('maps tools, tool_choice, text.format, the token cap and sampling', () => {
    const chat = chatBodyOf({
      model: 'm',
      input: 'x',
      tools: [
        { type: 'function', name: 'get', description: 'd', parameters: { type: 'object' } },
        { type: 'web_search_preview' },
      ],
      tool_choice: { type: 'function', name: 'get' },
      text: {
        format: { type: 'json_schema', name: 's', schema: { type: 'object' }, strict: true },
      },
      max_output_tokens: 7,
      temperature: 0.5,
      top_p: 0.9,
    });
    assert.deepEqual(chat.tools, [
      {
        type: 'function',
        function: { name: 'get', parameters: { type: 'object' }, description: 'd' },
      },
    ]);
    assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'get' } });
    assert.deepEqual(chat.response_format, {
      type: 'json_schema',
      json_schema: { name: 's', schema: { type: 'object' }, strict: true },
    });
    assert.equal(chat.max_completion_tokens, 7);
    assert.equal(chat.temperature, 0.5);
    assert.equal(chat.top_p, 0.9);
  });

  it('allowed_tools narrows the tools offered, in its mode', () => {
    const chat = chatBodyOf({
      model: 'm',
      input: 'x',
      tools: [
        { type: 'function', name: 'a', parameters: {} },
        { type: 'function', name: 'b', parameters: {} },
      ],
      tool_choice: {
        type: 'allowed_tools',
        mode: 'required',
        tools: [{ type: 'function', name: 'b' }],
      },
    });
    assert.deepEqual(
      (chat.tools as { function: { name: string } }[]).map((t) => t.function.name),
      ['b'],
    );
    assert.equal(chat.tool_choice, 'required');
  });
});
