import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { chatToolsOf, toolConstraint } from '../../../src/grpc/tools.js';

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const time = { type: 'function', function: { name: 'get_time' } };

function refused(body: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(
    () => chatToolsOf(body),
    (e: unknown) =>
      e instanceof GatewayError &&
      e.code === 'invalid_request_parameters' &&
      pattern.test(e.message),
  );
}

test('tools and tool_choice are read, and none hides the tools', () => {
  assert.equal(chatToolsOf({}), undefined);
  assert.equal(chatToolsOf({ tools: [] }), undefined);
  assert.equal(chatToolsOf({ tools: [weather], tool_choice: 'none' }), undefined);
  const auto = chatToolsOf({ tools: [weather, time] });
  assert.deepEqual(auto?.mode, { kind: 'auto' });
  assert.deepEqual(
    auto?.functions.map((f) => f.name),
    ['get_weather', 'get_time'],
  );
  assert.deepEqual(auto?.functions[1]?.parameters, { type: 'object', properties: {} });
  const named = chatToolsOf({
    tools: [weather],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
  });
  assert.deepEqual(named?.mode, { kind: 'named', name: 'get_weather' });
  const history = chatToolsOf({
    tools: [weather],
    messages: [
      { role: 'assistant', tool_calls: [{}, {}] },
      { role: 'tool', content: 'x' },
      { role: 'assistant', tool_calls: [{}] },
    ],
  });
  assert.equal(history?.historyCalls, 3);
});

test('malformed tools and choices are 400s naming the field', () => {
  refused({ tools: 'x' }, /'tools' must be a list/);
  refused({ tools: [{ type: 'function' }] }, /tools\[0\]/);
  refused({ tools: [{ type: 'function', function: { name: '' } }] }, /name/);
  refused({ tools: [weather], tool_choice: 'sometimes' }, /'tool_choice' must be/);
  refused(
    { tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } },
    /names 'nope'/,
  );
  refused({ tool_choice: 'required' }, /needs 'tools'/);
});

test('required and named choices become JSON-schema constraints; auto none', () => {
  assert.equal(toolConstraint(chatToolsOf({ tools: [weather] })!), undefined);
  const named = toolConstraint(
    chatToolsOf({
      tools: [weather, time],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    })!,
  );
  assert.equal(named?.kind, 'json_schema');
  assert.deepEqual(JSON.parse((named as { value: string }).value), weather.function.parameters);
  const required = toolConstraint(
    chatToolsOf({ tools: [weather, time], tool_choice: 'required' })!,
  );
  const schema = JSON.parse((required as { value: string }).value) as {
    type: string;
    minItems: number;
    items: { anyOf: { properties: { name: { enum: string[] } } }[] };
  };
  assert.equal(schema.type, 'array');
  assert.equal(schema.minItems, 1);
  assert.deepEqual(
    schema.items.anyOf.map((s) => s.properties.name.enum),
    [['get_weather'], ['get_time']],
  );
});

test('parallel_tool_calls false allows one call: the required schema says so', () => {
  const one = chatToolsOf({
    tools: [weather],
    tool_choice: 'required',
    parallel_tool_calls: false,
  });
  assert.equal(one?.parallel, false);
  const schema = JSON.parse((toolConstraint(one) as { value: string }).value) as {
    maxItems?: number;
  };
  assert.equal(schema.maxItems, 1);
  assert.equal(chatToolsOf({ tools: [weather] })?.parallel, true);
  refused({ tools: [weather], parallel_tool_calls: 'no' }, /parallel_tool_calls/);
});
