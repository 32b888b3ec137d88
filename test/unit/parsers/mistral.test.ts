import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MistralToolParser } from '../../../src/parsers/tool/mistral.js';
import { assertStreamsLikeParse } from './stream-property.js';

const parser = new MistralToolParser();

test('a single call in the list; text before the marker is content', () => {
  assertStreamsLikeParse(
    parser,
    'Let me search for that.\n[TOOL_CALLS] [{"name": "search_web", "arguments": {"query": "latest news", "max_results": 5}}]',
    {
      content: 'Let me search for that.\n',
      calls: [{ name: 'search_web', arguments: '{"query":"latest news","max_results":5}' }],
    },
  );
});

test('several calls over several lines', () => {
  const text = `I'll help you with both tasks.
[TOOL_CALLS] [
    {"name": "get_weather", "arguments": {"city": "Tokyo", "units": "celsius"}},
    {"name": "search_news", "arguments": {"query": "AI developments", "limit": 10}}
]`;
  assertStreamsLikeParse(parser, text, {
    content: "I'll help you with both tasks.\n",
    calls: [
      { name: 'get_weather', arguments: '{"city":"Tokyo","units":"celsius"}' },
      { name: 'search_news', arguments: '{"query":"AI developments","limit":10}' },
    ],
  });
});

test('nested arguments, brackets and escaped quotes inside strings', () => {
  assertStreamsLikeParse(
    parser,
    '[TOOL_CALLS] [{"name": "process_data", "arguments": {"config": {"nested": {"value": [1, 2, 3]}}, "enabled": true}}, {"name": "echo", "arguments": {"text": "Array notation: arr[0] = value[1], \\"q\\" ]}"}}]',
    {
      content: '',
      calls: [
        {
          name: 'process_data',
          arguments: '{"config":{"nested":{"value":[1,2,3]}},"enabled":true}',
        },
        { name: 'echo', arguments: '{"text":"Array notation: arr[0] = value[1], \\"q\\" ]}"}' },
      ],
    },
  );
});

test('text after the list is content; a single object stands for a one-call list', () => {
  assertStreamsLikeParse(
    parser,
    '[TOOL_CALLS] [{"name": "test", "arguments": {}}]\n\nAnd here is some text after the tool call.',
    {
      content: '\n\nAnd here is some text after the tool call.',
      calls: [{ name: 'test', arguments: '{}' }],
    },
  );
  assertStreamsLikeParse(parser, '[TOOL_CALLS]{"name": "ping", "arguments": {}}', {
    content: '',
    calls: [{ name: 'ping', arguments: '{}' }],
  });
});

test('malformed or unfinished lists are content', () => {
  for (const text of [
    '[TOOL_CALLS] [{"name": invalid}]',
    '[TOOL_CALLS] [{"name": "test", "arguments": {}',
    '[TOOL_CALLS] []',
    '[TOOL_CALLS] not json',
    'Just plain text',
    '[{"name": "test", "arguments": {}}]',
  ]) {
    assert.deepEqual(parser.parse(text), { content: text, calls: [] }, text);
  }
  for (const text of ['[TOOL_CALLS] [{"name": invalid}]', '[TOOL_CALLS] []', 'see [TOOLS] x']) {
    assertStreamsLikeParse(parser, text, { content: text, calls: [] });
  }
});
