import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deepseek31ToolParser as parser } from '../../../src/parsers/tool/deepseek31.js';
import { assertEverySplitMatches } from './stream-split-check.js';

const BEGIN = '<｜tool▁calls▁begin｜>';
const END = '<｜tool▁calls▁end｜>';
const call = (name: string, args: string): string =>
  `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${args}<｜tool▁call▁end｜>`;

test('deepseek31: the markers are the full-width bar and the lower block of the tokenizer', () => {
  assert.deepEqual(
    [...BEGIN].filter((c) => c > '~'),
    ['\uFF5C', '\u2581', '\u2581', '\uFF5C'],
  );
});

test('deepseek31: one call after text', () => {
  const text = `Let me check that for you.${BEGIN}${call('get_weather', '{"location": "Tokyo", "units": "celsius"}')}${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: 'Let me check that for you.',
    calls: [{ name: 'get_weather', arguments: '{"location": "Tokyo", "units": "celsius"}' }],
  });
});

test('deepseek31: several calls, the line breaks between them are layout', () => {
  const text = `${BEGIN}\n${call('search', '{"query": "rust programming"}')}\n${call('translate', '{"text": "Hello World", "to": "ja"}')}\n${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: '',
    calls: [
      { name: 'search', arguments: '{"query": "rust programming"}' },
      { name: 'translate', arguments: '{"text": "Hello World", "to": "ja"}' },
    ],
  });
});

test('deepseek31: nested JSON and escaped quotes are kept as written, trimmed', () => {
  const args =
    '{"data": {"nested": {"deep": [1, 2.0, 9007199254740993]}}, "q": "say \\"hi\\" <b>"}';
  const text = `${BEGIN}${call('process', ` ${args}\n`)}${END}`;
  const result = assertEverySplitMatches(parser, text);
  assert.deepEqual(result.calls, [{ name: 'process', arguments: args }]);
  assert.equal(result.content, '');
});

test('deepseek31: text after the section is content; a JSON value other than an object is wrapped', () => {
  const text = `Sure.${BEGIN}${call('count', '[1, 2]')}${END}\nDone.`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: 'Sure.\nDone.',
    calls: [{ name: 'count', arguments: '{"value":[1, 2]}' }],
  });
});

test('deepseek31: a call without its section is still a call', () => {
  const text = `Here: ${call('ping', '{}')} ok`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: 'Here:  ok',
    calls: [{ name: 'ping', arguments: '{}' }],
  });
});

test('deepseek31: a malformed call stays in content, the good one beside it is taken', () => {
  const bad = call('search', '{invalid json}');
  const text = `${BEGIN}${bad}${call('translate', '{"text": "hello", "to": "ja"}')}${END}`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: bad,
    calls: [{ name: 'translate', arguments: '{"text": "hello", "to": "ja"}' }],
  });
});

test('deepseek31: a call with no name, or no separator, is malformed: its section is content', () => {
  for (const bad of [call('', '{}'), '<｜tool▁call▁begin｜>ping {}<｜tool▁call▁end｜>']) {
    assert.deepEqual(assertEverySplitMatches(parser, `${BEGIN}${bad}${END}`), {
      content: `${BEGIN}${bad}${END}`,
      calls: [],
    });
  }
});

test('deepseek31: an unfinished call is content as written at the end of the answer', () => {
  const text = `Hi ${BEGIN}<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Pa`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: text,
    calls: [],
  });
});

test('deepseek31: plain text, and text that only starts like a marker, pass through', () => {
  for (const text of ['Just a normal response with no tools.', 'a <｜tool x < b', '<｜tool▁call']) {
    assert.deepEqual(assertEverySplitMatches(parser, text), { content: text, calls: [] });
  }
});

test('deepseek31: a streamed call goes out whole when its end marker arrives', () => {
  const stream = parser.stream();
  assert.deepEqual(stream.push(`Hi${BEGIN}<｜tool▁call▁begin｜>get_weather<｜tool`), {
    content: 'Hi',
    calls: [],
  });
  assert.deepEqual(stream.push('▁sep｜>{"city": "Paris"}<｜tool▁call'), { content: '', calls: [] });
  assert.deepEqual(stream.push('▁end｜>'), {
    content: '',
    calls: [{ index: 0, name: 'get_weather', arguments: '{"city": "Paris"}' }],
  });
  assert.deepEqual(stream.push(`${END}`), { content: '', calls: [] });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});
