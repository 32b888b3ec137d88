import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QwenToolParser } from '../../../src/parsers/tool/qwen.js';
import { assertStreamsLikeParse, runStream } from './stream-property.js';

const parser = new QwenToolParser();

test('a single call: name and minified arguments, no content', () => {
  const text =
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing", "units": "celsius"}}\n</tool_call>';
  assertStreamsLikeParse(parser, text, {
    content: '',
    calls: [{ name: 'get_weather', arguments: '{"city":"Beijing","units":"celsius"}' }],
  });
});

test('text before the call is content', () => {
  const text =
    'Let me help you with that.\n<tool_call>\n{"name": "search", "arguments": {"query": "rust programming"}}\n</tool_call>';
  assertStreamsLikeParse(parser, text, {
    content: 'Let me help you with that.\n',
    calls: [{ name: 'search', arguments: '{"query":"rust programming"}' }],
  });
});

test('several calls; the layout whitespace between them is not content', () => {
  const text = `First, let me search for information.
<tool_call>
{"name": "search", "arguments": {"query": "rust"}}
</tool_call>
<tool_call>
{
  "name": "calculator",
  "arguments": {"expression": "2 + 2"}
}
</tool_call>
`;
  assertStreamsLikeParse(parser, text, {
    content: 'First, let me search for information.\n',
    calls: [
      { name: 'search', arguments: '{"query":"rust"}' },
      { name: 'calculator', arguments: '{"expression":"2 + 2"}' },
    ],
  });
});

test('nested arguments, escaped quotes, unicode and markup inside strings are kept as written', () => {
  const args =
    '{"data": {"nested": {"list": [1, 2.50, {"k": null}], "ok": true}}, "text": "say \\"hi\\" to C:\\\\tmp", "u": "\\u00e9 世界 🌍", "tag": "</tool_call> <tool_call>"}';
  const text = `<tool_call>\n{"name": "process", "arguments": ${args}}\n</tool_call>`;
  const whole = assertStreamsLikeParse(parser, text);
  assert.equal(
    whole.calls[0]?.arguments,
    '{"data":{"nested":{"list":[1,2.50,{"k":null}],"ok":true}},"text":"say \\"hi\\" to C:\\\\tmp","u":"\\u00e9 世界 🌍","tag":"</tool_call> <tool_call>"}',
  );
  assert.deepEqual(JSON.parse(whole.calls[0]?.arguments ?? ''), JSON.parse(args));
});

test('text after the call is content', () => {
  const text =
    'Checking.\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\nI will report back.';
  assertStreamsLikeParse(parser, text, {
    content: 'Checking.\n\nI will report back.',
    calls: [{ name: 'f', arguments: '{}' }],
  });
});

test('`parameters` stands for `arguments`; a call without either takes none', () => {
  assertStreamsLikeParse(
    parser,
    '<tool_call>\n{"name": "a", "parameters": {"x": 1}}\n</tool_call><tool_call>{"name": "b"}</tool_call>',
    {
      content: '',
      calls: [
        { name: 'a', arguments: '{"x":1}' },
        { name: 'b', arguments: '{}' },
      ],
    },
  );
});

test('a missing closing tag after a whole call still makes the call', () => {
  assertStreamsLikeParse(parser, '<tool_call>\n{"name": "get_time", "arguments": {}}', {
    content: '',
    calls: [{ name: 'get_time', arguments: '{}' }],
  });
});

test('malformed calls stay in content, and a good call after them is still read', () => {
  for (const text of [
    '<tool_call>\n{"name": "f", "arguments": {"a": }}\n</tool_call>',
    "<tool_call>\n{'name': 'f'}\n</tool_call>",
    '<tool_call>\n{"foo": 1}\n</tool_call>',
    '<tool_call>\n{"name": 42, "arguments": {}}\n</tool_call>',
    '<tool_call>\n{"name": "f", "arguments": {"a": 1}\n</tool_call>',
    '<tool_call>\n{"name": "f", "arguments": {"a": 1',
    '<tool_call>',
    'plain <tool_call text',
  ]) {
    assert.deepEqual(parser.parse(text), { content: text, calls: [] }, text);
  }
  const text =
    'Try:\n<tool_call>\n{oops}\n</tool_call>\n<tool_call>\n{"name": "ok", "arguments": {"v": "x"}}\n</tool_call>';
  assertStreamsLikeParse(parser, text, {
    content: 'Try:\n<tool_call>\n{oops}\n</tool_call>\n',
    calls: [{ name: 'ok', arguments: '{"v":"x"}' }],
  });
});

test('markup that fails before the name is content in streaming as well', () => {
  for (const text of [
    'a <tool_call>\n{"foo": 1}\n</tool_call> b',
    '<tool_call>\n{oops}\n</tool_call>',
    '<tool_call> not json',
    '<tool_call>\n{"name": 42}',
  ]) {
    assertStreamsLikeParse(parser, text, { content: text, calls: [] });
  }
});

test('a tail that could grow into the marker is held back, then released when it does not', () => {
  const stream = parser.stream();
  assert.deepEqual(stream.push('Hello <tool'), { content: 'Hello ', calls: [] });
  assert.deepEqual(stream.push('s are fun'), { content: '<tools are fun', calls: [] });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});

test('the name streams as soon as its string closes, the arguments as they arrive', () => {
  const stream = parser.stream();
  assert.deepEqual(stream.push('<tool_call>\n{"name": "get_wea'), { content: '', calls: [] });
  assert.deepEqual(stream.push('ther", "arguments": {"city": "Par'), {
    content: '',
    calls: [{ index: 0, name: 'get_weather', arguments: '{"city":"Par' }],
  });
  assert.deepEqual(stream.push('is"}}\n</tool_call>'), {
    content: '',
    calls: [{ index: 0, arguments: 'is"}' }],
  });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});

test('a streamed call that breaks after its name ends there; its rest becomes content', () => {
  const out = runStream(parser, [
    '<tool_call>\n{"name": "f", "arguments": {"a": 1',
    ', oops}}\n</tool_call> after',
  ]);
  assert.deepEqual(out, {
    content: 'oops}}\n</tool_call> after',
    calls: [{ name: 'f', arguments: '{"a":1,' }],
  });
});

test('an answer without calls streams through unchanged', () => {
  const text = '  Just plain text, with <b>tags</b> and {braces}.\n';
  assertStreamsLikeParse(parser, text, { content: text, calls: [] });
});
