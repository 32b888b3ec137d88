import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deepseekToolParser as parser } from '../../../src/parsers/tool/deepseek.js';
import { assertEverySplitMatches } from './stream-split-check.js';

const BEGIN = '<｜tool▁calls▁begin｜>';
const END = '<｜tool▁calls▁end｜>';
const call = (name: string, args: string, type = 'function'): string =>
  `<｜tool▁call▁begin｜>${type}<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;

test('deepseek: one call after text', () => {
  const text = `Let me help you with that.\n${BEGIN}${call('get_weather', '{"location": "Tokyo", "units": "celsius"}')}${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: 'Let me help you with that.\n',
    calls: [{ name: 'get_weather', arguments: '{"location": "Tokyo", "units": "celsius"}' }],
  });
});

test('deepseek: several calls, with text after the section', () => {
  const text = `${BEGIN}\n${call('search', '{"query": "rust programming"}')}\n${call('translate', '{"text": "Hello World", "to": "ja"}')}\n${END}\nThe weather in Tokyo is...`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: '\nThe weather in Tokyo is...',
    calls: [
      { name: 'search', arguments: '{"query": "rust programming"}' },
      { name: 'translate', arguments: '{"text": "Hello World", "to": "ja"}' },
    ],
  });
});

test('deepseek: pretty-printed nested JSON with escaped quotes and fences in strings', () => {
  const args =
    '{\n  "data": {\n    "nested": {"deep": [1, 2, 3]}\n  },\n  "md": "```json\\n{\\"a\\": 1}\\n```"\n}';
  const text = `${BEGIN}${call('process', args)}${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: '',
    calls: [{ name: 'process', arguments: args }],
  });
  assert.deepEqual(JSON.parse(parser.parse(text).calls[0]?.arguments ?? ''), {
    data: { nested: { deep: [1, 2, 3] } },
    md: '```json\n{"a": 1}\n```',
  });
});

test('deepseek: a call of another type, without the fence, or with bad JSON stays in content', () => {
  const good = call('ok', '{}');
  for (const bad of [
    call('get_weather', '{}', 'tool'),
    '<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n{}<｜tool▁call▁end｜>',
    '<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather```json\n{}\n```<｜tool▁call▁end｜>',
    call('get_weather', '{"city": '),
    call('', '{}'),
  ]) {
    assert.deepEqual(
      assertEverySplitMatches(parser, `${BEGIN}${bad}${good}${END}`, { randomCuts: 10 }),
      {
        content: bad,
        calls: [{ name: 'ok', arguments: '{}' }],
      },
    );
  }
});

test('deepseek: an unfinished section is content as written at the end of the answer', () => {
  const text = `${BEGIN}<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\`\`\`json\n{"city"`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: text,
    calls: [],
  });
});

test('deepseek: text with code fences and no calls passes through', () => {
  const text = 'Use this:\n```json\n{"a": 1}\n```\nDone <｜tool';
  assert.deepEqual(assertEverySplitMatches(parser, text), { content: text, calls: [] });
});
