// An Anthropic Messages body as the gRPC pipeline runs it: the conversation as chat messages in
// the order sent (tool results right after the call they answer, the turn's text after them),
// thinking as reasoning_content, custom tools only, tool_choice and thinking mapped, and the
// sampling fields the API has.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../../src/errors/gateway-error.js';
import { chatMessagesOf, messagesPlan } from '../../../../src/grpc/messages/messages-plan.js';

const TOOL = { name: 'get_weather', input_schema: { type: 'object', properties: {} } };

void describe('Messages request → gRPC plan', () => {
  void it('turns blocks into chat messages in the order they were sent', () => {
    const chat = chatMessagesOf({
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } },
      ],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'need a tool', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Checking' },
            { type: 'text', text: ' now.' },
            { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Lyon' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: 'sunny' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_b',
              content: [
                { type: 'text', text: 'rain' },
                { type: 'text', text: 'wind' },
              ],
              is_error: false,
            },
            { type: 'text', text: 'Thanks.' },
          ],
        },
        { role: 'system', content: 'Reminder: be brief.' },
      ],
    });
    assert.deepEqual(chat, [
      { role: 'system', content: 'You are terse.\nAnswer in French.' },
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: 'Checking now.',
        tool_calls: [
          {
            id: 'toolu_a',
            type: 'function',
            function: { name: 'get_weather', arguments: { city: 'Paris' } },
          },
          {
            id: 'toolu_b',
            type: 'function',
            function: { name: 'get_weather', arguments: { city: 'Lyon' } },
          },
        ],
        reasoning_content: 'need a tool',
      },
      { role: 'tool', tool_call_id: 'toolu_a', content: 'sunny' },
      { role: 'tool', tool_call_id: 'toolu_b', content: 'rain\nwind' },
      { role: 'user', content: 'Thanks.' },
      { role: 'system', content: 'Reminder: be brief.' },
    ]);
  });

  void it('gives a tool-call-only assistant turn null content, rendered as the empty string', () => {
    const body = {
      max_tokens: 8,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
      ],
    };
    assert.equal(chatMessagesOf(body)[1]?.content, null);
    const plan = messagesPlan(body, false);
    assert.ok(plan.prompt.kind === 'chat');
    assert.equal(plan.prompt.input.messages[1]?.content, '');
  });

  void it('maps tools, tool_choice, thinking and sampling', () => {
    const plan = messagesPlan(
      {
        max_tokens: 77,
        temperature: 0.3,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ['END'],
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tools: [TOOL, { type: 'bash_20250124', name: 'bash' }],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        messages: [{ role: 'user', content: 'hi' }],
      },
      true,
    );
    assert.equal(plan.kind, 'messages');
    assert.equal(plan.stream, true);
    assert.equal(plan.separateReasoning, true);
    assert.ok(plan.prompt.kind === 'chat');
    assert.equal(plan.prompt.input.thinking, true);
    // Anthropic's server tools are left out; the custom one is a function tool.
    assert.deepEqual(
      plan.tools?.functions.map((f) => f.name),
      ['get_weather'],
    );
    assert.deepEqual(plan.prompt.input.tools, [
      { type: 'function', function: { name: 'get_weather', parameters: TOOL.input_schema } },
    ]);
    assert.deepEqual(plan.tools?.mode, { kind: 'required' });
    assert.equal(plan.tools?.parallel, false);
    assert.equal(
      plan.sampling.constraint?.kind,
      'json_schema',
      '`any` is enforced by a constraint',
    );
    assert.equal(plan.sampling.maxNewTokens, 77);
    assert.equal(plan.sampling.temperature, 0.3);
    assert.equal(plan.sampling.topP, 0.9);
    assert.equal(plan.sampling.topK, 40);
    assert.deepEqual(plan.sampling.stop, ['END']);

    const named = messagesPlan(
      {
        max_tokens: 8,
        tools: [TOOL],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [{ role: 'user', content: 'x' }],
      },
      false,
    );
    assert.deepEqual(named.tools?.mode, { kind: 'named', name: 'get_weather' });
    const none = messagesPlan(
      {
        max_tokens: 8,
        tools: [TOOL],
        tool_choice: { type: 'none' },
        thinking: { type: 'disabled' },
        messages: [{ role: 'user', content: 'x' }],
      },
      false,
    );
    assert.equal(none.tools, undefined);
    assert.equal(none.separateReasoning, false);
    assert.ok(none.prompt.kind === 'chat');
    assert.equal(none.prompt.input.thinking, false);
    const plain = messagesPlan(
      { max_tokens: 8, messages: [{ role: 'user', content: 'x' }] },
      false,
    );
    assert.ok(plain.prompt.kind === 'chat');
    assert.equal(plain.prompt.input.thinking, undefined, "the template's own default");
    assert.equal(plain.separateReasoning, false);
  });

  void it('refuses blocks a role cannot hold and media it cannot carry', () => {
    const refuse = (messages: unknown[], code = 'invalid_request_parameters') =>
      assert.throws(
        () => messagesPlan({ max_tokens: 8, messages }, false),
        (err: unknown) => err instanceof GatewayError && err.code === code && err.status === 400,
      );
    refuse([{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x' }] }]);
    refuse([{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'f', input: {} }] }]);
    refuse([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'f', input: 'str' }] },
    ]);
    refuse([{ role: 'user', content: [{ type: 'text', text: 1 }] }]);
    refuse(
      [{ role: 'user', content: [{ type: 'image', source: {} }] }],
      'multimodal_not_supported',
    );
  });
});
