import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonToolParser } from '../../../src/parsers/tool/json.js';
import { assertStreamsLikeParse } from './stream-property.js';

const parser = new JsonToolParser();

test('a single call object is the whole answer', () => {
  assertStreamsLikeParse(
    parser,
    '{"name": "get_weather", "arguments": {"location": "San Francisco"}}',
    { content: '', calls: [{ name: 'get_weather', arguments: '{"location":"San Francisco"}' }] },
  );
});

test('a list of calls; prose before it is content', () => {
  const text = `Hello, here are the results: [
        {"name": "get_weather", "arguments": {"location": "SF"}},
        {"name": "search", "arguments": {"query": "news"}}
    ]`;
  assertStreamsLikeParse(parser, text, {
    content: 'Hello, here are the results: ',
    calls: [
      { name: 'get_weather', arguments: '{"location":"SF"}' },
      { name: 'search', arguments: '{"query":"news"}' },
    ],
  });
});

test('`parameters` and a string `function` key are accepted', () => {
  assertStreamsLikeParse(parser, '{"name": "calculate", "parameters": {"x": 10, "y": 20}}', {
    content: '',
    calls: [{ name: 'calculate', arguments: '{"x":10,"y":20}' }],
  });
  assertStreamsLikeParse(parser, '{"function": "ping", "arguments": {}}', {
    content: '',
    calls: [{ name: 'ping', arguments: '{}' }],
  });
});

test('prose before and after a call is content', () => {
  const text =
    'I\'ll help you with that. {"name": "search", "arguments": {"query": "rust"}} Let me search for that.';
  assertStreamsLikeParse(parser, text, {
    content: "I'll help you with that.  Let me search for that.",
    calls: [{ name: 'search', arguments: '{"query":"rust"}' }],
  });
});

test('nested objects, escapes and unicode survive; the layout is minified', () => {
  const text = `{
        "name": "update_config",
        "arguments": {
            "settings": {"theme": "dark", "notifications": {"email": true, "push": false}},
            "text": "Line 1\\nLine 2\\tTabbed \\"quoted\\"", "path": "C:\\\\Users\\\\test",
            "greeting": "Hello 世界 🌍 \\ud83d\\ude0a"
        }
    }`;
  const whole = assertStreamsLikeParse(parser, text);
  assert.equal(whole.content, '');
  assert.equal(
    whole.calls[0]?.arguments,
    '{"settings":{"theme":"dark","notifications":{"email":true,"push":false}},"text":"Line 1\\nLine 2\\tTabbed \\"quoted\\"","path":"C:\\\\Users\\\\test","greeting":"Hello 世界 🌍 \\ud83d\\ude0a"}',
  );
  assert.deepEqual(JSON.parse(whole.calls[0]?.arguments ?? ''), {
    settings: { theme: 'dark', notifications: { email: true, push: false } },
    text: 'Line 1\nLine 2\tTabbed "quoted"',
    path: 'C:\\Users\\test',
    greeting: 'Hello 世界 🌍 😊',
  });
});

test('a list closes with its bracket; text after it is content', () => {
  assertStreamsLikeParse(parser, '[{"name": "a", "arguments": {}}, {"name": "b"}] Done.', {
    content: ' Done.',
    calls: [
      { name: 'a', arguments: '{}' },
      { name: 'b', arguments: '{}' },
    ],
  });
});

test('JSON that is not a call, brackets in prose and malformed JSON are content', () => {
  for (const text of [
    'This is just plain text',
    '{"name": "test", "arguments": {"key": "value"',
    '{"result": {"name": "nested", "arguments": {}}}',
    'See [1] and [2, 3], or {braces}.',
    '[]',
    '[{"a": 1}]',
    '{"name": "f", "arguments": {"a": }}',
    '```json\n{"temperature": 21}\n```',
  ]) {
    assert.deepEqual(parser.parse(text), { content: text, calls: [] }, text);
  }
  for (const text of [
    'This is just plain text',
    '{"result": {"name": "nested", "arguments": {}}}',
    'See [1] and [2, 3], or {braces}.',
    '[{"a": 1}]',
  ]) {
    assertStreamsLikeParse(parser, text, { content: text, calls: [] });
  }
});

test('a list that goes wrong after its first call keeps the call; the rest is content', () => {
  assertStreamsLikeParse(parser, '[{"name": "a", "arguments": {"x": 1}}, 7]', {
    content: ', 7]',
    calls: [{ name: 'a', arguments: '{"x":1}' }],
  });
});
