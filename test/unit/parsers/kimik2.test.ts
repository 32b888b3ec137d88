import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kimiK2ToolParser as parser } from '../../../src/parsers/tool/kimik2.js';
import { assertEverySplitMatches } from './stream-split-check.js';

const BEGIN = '<|tool_calls_section_begin|>';
const END = '<|tool_calls_section_end|>';
const call = (id: string, args: string): string =>
  `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;

test('kimik2: one call after text', () => {
  const text = `Let me help you with that.\n${BEGIN}${call('functions.get_weather:0', '{"location": "Tokyo", "units": "celsius"}')}${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: 'Let me help you with that.\n',
    calls: [{ name: 'get_weather', arguments: '{"location": "Tokyo", "units": "celsius"}' }],
  });
});

test('kimik2: several calls on their own lines, numbered in order', () => {
  const text = `${BEGIN}\n${call('functions.first:0', '{"param": "a"}')}\n${call('functions.second:1', '{"param": "b"}')}\n${call('functions.third:2', '{"param": "c"}')}\n${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: '',
    calls: [
      { name: 'first', arguments: '{"param": "a"}' },
      { name: 'second', arguments: '{"param": "b"}' },
      { name: 'third', arguments: '{"param": "c"}' },
    ],
  });
});

test('kimik2: spaces around the id and the arguments; a dotted name without the namespace', () => {
  const text = `${BEGIN}${call(' functions.test:0 ', ' {"key": "value", "num": 42} ')}${call('api.tools.search:1', '{"q": "test"}')}${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: '',
    calls: [
      { name: 'test', arguments: '{"key": "value", "num": 42}' },
      { name: 'api.tools.search', arguments: '{"q": "test"}' },
    ],
  });
});

test('kimik2: multi-line nested arguments with escapes, text after the section', () => {
  const args =
    '{\n  "location": "Tokyo",\n  "note": "line one\\nline two \\"quoted\\"",\n  "opts": {"days": [1, 2]}\n}';
  const text = `Sure.\n${BEGIN}\n${call('functions.get_weather:0', args)}\n${END}\nAnything else?`;
  const result = assertEverySplitMatches(parser, text);
  assert.deepEqual(result, {
    content: 'Sure.\n\nAnything else?',
    calls: [{ name: 'get_weather', arguments: args }],
  });
  const parsed = JSON.parse(result.calls[0]?.arguments ?? '') as { note: string };
  assert.equal(parsed.note, 'line one\nline two "quoted"');
});

test('kimik2: an id without an index, or arguments that are not an object, stay in content', () => {
  const good = call('functions.ok:1', '{}');
  for (const bad of [
    call('functions.get_weather', '{}'),
    call('functions.get_weather:x', '{}'),
    call('functions.get_weather:0', '[1]'),
    call('functions.get_weather:0', '{"city": "Paris"'),
  ]) {
    assert.deepEqual(
      assertEverySplitMatches(parser, `${BEGIN}${bad}${good}${END}`, { randomCuts: 10 }),
      { content: bad, calls: [{ name: 'ok', arguments: '{}' }] },
    );
  }
});

test('kimik2: an unfinished call is content as written at the end of the answer', () => {
  const text = `${BEGIN}<|tool_call_begin|>functions.calculate:0<|tool_call_argument_begin|>{"x": 10, `;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: text,
    calls: [],
  });
});
