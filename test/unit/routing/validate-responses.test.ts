// The Responses edge checks refuse what SMG's validator refuses, in every mode, before any worker,
// and accept a turn of only function outputs (which SMG refuses).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { validateResponses } from '../../../src/routing/validate-responses.js';

const TOOLS = [{ type: 'function', name: 'get', parameters: { type: 'object' } }];

function codeOf(body: Record<string, unknown>): string | undefined {
  try {
    validateResponses({ model: 'm', input: 'hi', ...body });
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    return err.code;
  }
  return undefined;
}

describe('Responses edge checks', () => {
  it('accepts a plain request, tools with a named choice, and outputs-only turns', () => {
    assert.equal(codeOf({}), undefined);
    assert.equal(
      codeOf({ tools: TOOLS, tool_choice: { type: 'function', name: 'get' } }),
      undefined,
    );
    assert.equal(
      codeOf({
        previous_response_id: 'resp_1',
        input: [{ type: 'function_call_output', call_id: 'call_1', output: 'x' }],
      }),
      undefined,
    );
    assert.equal(codeOf({ conversation: { id: 'conv_ab-1' } }), undefined);
  });

  it('refuses bad input, ranges and tool choices with invalid_body', () => {
    for (const bad of [
      { input: '' },
      { input: [] },
      { input: [{ content: 'no role' }] },
      { input: [{ type: 'function_call_output', output: 'x' }] },
      { model: 3 },
      { max_output_tokens: 0 },
      { temperature: 3 },
      { top_p: -1 },
      { store: 'yes' },
      { tool_choice: 'required' },
      { tools: TOOLS, tool_choice: { type: 'function', name: 'other' } },
      { tools: TOOLS, tool_choice: { type: 'allowed_tools', mode: 'sometimes', tools: [] } },
      { text: { format: { type: 'json_schema', name: '' } } },
      { conversation: 'conv with spaces' },
      { tools: [{ type: 'function' }] },
    ])
      assert.equal(codeOf(bad), 'invalid_body', JSON.stringify(bad));
  });

  it('previous_response_id with conversation is SMG’s mutually_exclusive_parameters', () => {
    assert.equal(
      codeOf({ previous_response_id: 'resp_1', conversation: 'conv_1' }),
      'mutually_exclusive_parameters',
    );
  });
});
