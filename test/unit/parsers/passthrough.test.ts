import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PassthroughToolParser } from '../../../src/parsers/tool/passthrough.js';
import { assertStreamsLikeParse } from './stream-property.js';

const parser = new PassthroughToolParser();

test('everything is content, markup included, and streams without delay', () => {
  const text = 'Hi <tool_call>\n{"name": "f", "arguments": {}}\n</tool_call> [TOOL_CALLS] [] ';
  assertStreamsLikeParse(parser, text, { content: text, calls: [] });
  const stream = parser.stream();
  assert.deepEqual(stream.push('<tool'), { content: '<tool', calls: [] });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});
