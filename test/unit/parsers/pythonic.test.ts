import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pythonicToolParser as parser } from '../../../src/parsers/tool/pythonic.js';
import { assertEverySplitMatches } from './stream-split-check.js';

test('pythonic: one call', () => {
  assert.deepEqual(
    assertEverySplitMatches(parser, `[get_weather(city="London", units='celsius')]`),
    {
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city":"London","units":"celsius"}' }],
    },
  );
});

test('pythonic: several calls over lines, with text before and after (SMG’s Llama 4 sample)', () => {
  const text = `I'll help you with multiple tasks.

[web_search(query="latest Rust features", max_results=3, safe_search=True),
 calculate(expression="42 * 3.14159", precision=2),
 get_weather(city="San Francisco", units="fahrenheit", include_forecast=False)]

These functions will provide the information you need.`;
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content:
      "I'll help you with multiple tasks.\n\n\n\nThese functions will provide the information you need.",
    calls: [
      {
        name: 'web_search',
        arguments: '{"query":"latest Rust features","max_results":3,"safe_search":true}',
      },
      { name: 'calculate', arguments: '{"expression":"42 * 3.14159","precision":2}' },
      {
        name: 'get_weather',
        arguments: '{"city":"San Francisco","units":"fahrenheit","include_forecast":false}',
      },
    ],
  });
});

test('pythonic: nested arguments with escaped quotes and brackets in strings', () => {
  const text = String.raw`[analyze(config={"patterns": ["[a-z]+", "(\d)]"], "nested": {"list": [1, (2, 3)]}}, note='It\'s "x"')]`;
  const result = assertEverySplitMatches(parser, text);
  assert.equal(result.content, '');
  assert.deepEqual(
    result.calls.map((c) => JSON.parse(c.arguments) as unknown),
    [
      {
        config: { patterns: ['[a-z]+', String.raw`(\d)]`], nested: { list: [1, [2, 3]] } },
        note: `It's "x"`,
      },
    ],
  );
});

test('pythonic: the python_start and python_end markers are dropped', () => {
  const text =
    'User wants the weather on Mars. <|python_start|>[get_weather(location="Mars")]<|python_end|> Done.';
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: 'User wants the weather on Mars.  Done.',
    calls: [{ name: 'get_weather', arguments: '{"location":"Mars"}' }],
  });
});

test('pythonic: each list is read; calls are numbered across them', () => {
  const text = '[a(x=1)] then [b(y=[2])]';
  assert.deepEqual(assertEverySplitMatches(parser, text), {
    content: ' then ',
    calls: [
      { name: 'a', arguments: '{"x":1}' },
      { name: 'b', arguments: '{"y":[2]}' },
    ],
  });
});

test('pythonic: lists and brackets that are not calls stay in content', () => {
  for (const text of [
    'Numbers: [1, 2, 3] and [link](https://x.y) and [a] [',
    '[foo (bar)] is no call',
    '[get_weather(city)]',
    '[f(x=1) g(y=2)]',
    '[function(=value)]',
    'a [f(x=y()) b',
  ]) {
    assert.deepEqual(assertEverySplitMatches(parser, text), { content: text, calls: [] }, text);
  }
});

test('pythonic: a list that never closes is content at the end of the answer', () => {
  const text = 'Checking: [get_weather(location="Tokyo", data=[1, 2';
  assert.deepEqual(assertEverySplitMatches(parser, text), { content: text, calls: [] });
});

test('pythonic: text goes out as it comes; a list waits for its closing bracket', () => {
  const stream = parser.stream();
  assert.deepEqual(stream.push('Let me check [1] and [get'), {
    content: 'Let me check [1] and ',
    calls: [],
  });
  assert.deepEqual(stream.push('_weather(location='), { content: '', calls: [] });
  assert.deepEqual(stream.push("'To]kyo'"), { content: '', calls: [] });
  assert.deepEqual(stream.push(')] ok'), {
    content: ' ok',
    calls: [{ index: 0, name: 'get_weather', arguments: '{"location":"To]kyo"}' }],
  });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});
