// The edge checks of an Anthropic Messages body, in every mode: the fields SMG's typed request
// requires, the block types it knows, tool_choice against the tools, and each tool_result
// answering a tool_use of the assistant turn just before it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { validateMessages } from '../../../src/routing/validate-messages.js';

const ok = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] };
const use = (id: string) => ({ type: 'tool_use', id, name: 'f', input: {} });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'r' });

function refused(body: Record<string, unknown>, pattern: RegExp, opts = {}): void {
  assert.throws(
    () => validateMessages(body, opts),
    (err: unknown) =>
      err instanceof GatewayError && err.code === 'invalid_body' && pattern.test(err.message),
  );
}

void describe('Messages edge validation', () => {
  void it('accepts a minimal body, count_tokens without max_tokens, and SMG block types', () => {
    validateMessages(ok);
    validateMessages({ model: 'm', messages: ok.messages }, { countOnly: true });
    validateMessages({
      ...ok,
      system: [{ type: 'text', text: 's' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'image', source: {} },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't' }, use('t1'), use('t2')] },
        { role: 'user', content: [result('t1'), result('t2'), { type: 'text', text: 'thanks' }] },
        { role: 'system', content: 'reminder' },
      ],
    });
  });

  void it('refuses missing or out-of-range fields', () => {
    refused({ ...ok, model: '' }, /model/);
    refused({ ...ok, max_tokens: 0 }, /max_tokens/);
    refused({ ...ok, max_tokens: undefined }, /max_tokens/);
    refused({ model: 'm', messages: ok.messages, max_tokens: 0 }, /max_tokens/, {
      countOnly: true,
    });
    refused({ ...ok, messages: [] }, /messages/);
    refused({ ...ok, messages: [{ role: 'tool', content: 'x' }] }, /messages\[0\]/);
    refused({ ...ok, stop_sequences: 'STOP' }, /stop_sequences/);
  });

  void it('refuses block types the API does not have', () => {
    refused(
      { ...ok, messages: [{ role: 'user', content: [{ type: 'bogus' }] }] },
      /unknown block type 'bogus'/,
    );
    refused(
      { ...ok, messages: [{ role: 'user', content: [{ text: 'no type' }] }] },
      /string 'type'/,
    );
  });

  void it('checks tool_choice against the tools', () => {
    refused({ ...ok, tool_choice: { type: 'any' } }, /needs 'tools'/);
    refused(
      { ...ok, tools: [{ name: 'f', input_schema: {} }], tool_choice: { type: 'tool', name: 'g' } },
      /'g'/,
    );
    validateMessages({ ...ok, tool_choice: { type: 'none' } });
  });

  void it('a tool_result must answer a tool_use of the assistant turn just before it', () => {
    refused({ ...ok, messages: [{ role: 'user', content: [result('x')] }] }, /'x'/);
    const turns = (answer: string) => [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use('a')] },
      { role: 'user', content: [result(answer)] },
    ];
    validateMessages({ ...ok, messages: turns('a') });
    refused({ ...ok, messages: turns('b') }, /'b'/);
    // A call two turns back is no longer open.
    refused(
      {
        ...ok,
        messages: [
          ...turns('a'),
          { role: 'assistant', content: 'done' },
          { role: 'user', content: [result('a')] },
        ],
      },
      /'a'/,
    );
    // A system message between the call and its result does not close the call.
    validateMessages({
      ...ok,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('a')] },
        { role: 'system', content: 'note' },
        { role: 'user', content: [result('a')] },
      ],
    });
  });
});
