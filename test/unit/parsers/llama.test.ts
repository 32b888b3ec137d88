import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LlamaToolParser } from '../../../src/parsers/tool/llama.js';
import { assertStreamsLikeParse } from './stream-property.js';

const parser = new LlamaToolParser();

test('a call after the python tag; text before the tag is content', () => {
  assertStreamsLikeParse(
    parser,
    'Here are some results: <|python_tag|>{"name": "search", "parameters": {"query": "weather"}}',
    {
      content: 'Here are some results: ',
      calls: [{ name: 'search', arguments: '{"query":"weather"}' }],
    },
  );
});

test('an answer that begins with the JSON object needs no tag', () => {
  assertStreamsLikeParse(parser, '\n\n{"name": "calculate", "parameters": {"x": 5, "y": 10}}', {
    content: '',
    calls: [{ name: 'calculate', arguments: '{"x":5,"y":10}' }],
  });
});

test('several calls joined by semicolons', () => {
  assertStreamsLikeParse(
    parser,
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_tourist_attractions", "parameters": {"city": "Paris"}} ;\n {"name": "ping", "arguments": {}}',
    {
      content: '',
      calls: [
        { name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'get_tourist_attractions', arguments: '{"city":"Paris"}' },
        { name: 'ping', arguments: '{}' },
      ],
    },
  );
});

test('nested, escaped and pretty-printed arguments', () => {
  const text = `<|python_tag|>{
    "name": "get_current_time",
    "parameters": {
        "timezone": "America/New_York",
        "format": {"style": "ISO8601", "quote": "a \\"b\\" \\\\ c", "list": [1, [2, {}]]}
    }
}`;
  assertStreamsLikeParse(parser, text, {
    content: '',
    calls: [
      {
        name: 'get_current_time',
        arguments:
          '{"timezone":"America/New_York","format":{"style":"ISO8601","quote":"a \\"b\\" \\\\ c","list":[1,[2,{}]]}}',
      },
    ],
  });
});

test('text after the calls is content; a separator without a call after it too', () => {
  assertStreamsLikeParse(parser, '{"name": "get_weather", "parameters": {}} Some follow-up text', {
    content: ' Some follow-up text',
    calls: [{ name: 'get_weather', arguments: '{}' }],
  });
  assertStreamsLikeParse(parser, '<|python_tag|>{"name": "a", "parameters": {}}; and more', {
    content: '; and more',
    calls: [{ name: 'a', arguments: '{}' }],
  });
});

test('invalid JSON after the tag, a JSON object later in prose, and plain text are content', () => {
  for (const text of [
    '<|python_tag|>{"name": invalid}',
    'This is just plain text with no tool calls',
    'Result: {"name": "f", "parameters": {}}',
    '<|python_tag|>brave_search.call(query="weather")',
    '{"answer": 42}',
  ]) {
    assertStreamsLikeParse(parser, text, { content: text, calls: [] });
  }
  const cut = '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}';
  assert.deepEqual(parser.parse(cut), { content: cut, calls: [] });
});
