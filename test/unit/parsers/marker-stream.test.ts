import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonArguments } from '../../../src/parsers/tool/marker-arguments.js';
import { markerToolParser } from '../../../src/parsers/tool/marker-stream.js';
import type { ToolCall } from '../../../src/parsers/types.js';
import { assertEverySplitMatches } from './stream-split-check.js';

/** A toy format: `<c>NAME:{json}</c>`, optionally grouped in `<s>…</s>`. */
function parseCall(body: string): ToolCall | undefined {
  const colon = body.indexOf(':');
  const args = jsonArguments(body.slice(colon + 1), 'reject');
  return colon < 1 || args === undefined
    ? undefined
    : { name: body.slice(0, colon), arguments: args };
}
const sectioned = markerToolParser('toy', {
  section: { begin: '<s>', end: '</s>' },
  callBegin: '<c>',
  callEnd: '</c>',
  parseCall,
});
const standalone = markerToolParser('toy', { callBegin: '<c>', callEnd: '</c>', parseCall });

test('marker stream: whitespace between removed markup is layout; other text is content', () => {
  const text = 'Before\n<s>\n <c>a:{"x":1}</c>\n\t<c>b:{}</c> note <c>c:{}</c>\n</s>\n\n';
  assert.deepEqual(assertEverySplitMatches(sectioned, text), {
    content: 'Before\n note ',
    calls: [
      { name: 'a', arguments: '{"x":1}' },
      { name: 'b', arguments: '{}' },
      { name: 'c', arguments: '{}' },
    ],
  });
});

test('marker stream: text after the calls keeps its leading whitespace', () => {
  const text = '<c>a:{}</c>\n<c>b:{}</c>\n\nThe weather is fine.';
  assert.deepEqual(assertEverySplitMatches(standalone, text), {
    content: '\n\nThe weather is fine.',
    calls: [
      { name: 'a', arguments: '{}' },
      { name: 'b', arguments: '{}' },
    ],
  });
});

test('marker stream: a malformed call is content as written, with the text after it', () => {
  const text = '<s><c>a:{nope}</c>\n<c>b:{"ok":true}</c></s>';
  assert.deepEqual(assertEverySplitMatches(sectioned, text), {
    content: '<c>a:{nope}</c>\n',
    calls: [{ name: 'b', arguments: '{"ok":true}' }],
  });
});

test('marker stream: an unfinished call, and a section with no call, are content as written', () => {
  for (const text of ['x<s><c>a:{"y": [1, ', 'x<s>\n</s>\ny', 'x<s> <c>a:{nope}</c> </s> ']) {
    assert.deepEqual(assertEverySplitMatches(sectioned, text), { content: text, calls: [] });
  }
});

test('marker stream: a section end outside a section, and markers of no format, are text', () => {
  const text = 'a </s> b </c> c <x>';
  assert.deepEqual(assertEverySplitMatches(sectioned, text), { content: text, calls: [] });
});

test('marker stream: the end marker is found however the body arrives', () => {
  const body = `a:{"s":"${'<c'.repeat(20)}</"}`;
  const text = `<c>${body}</c>tail`;
  assert.deepEqual(assertEverySplitMatches(standalone, text, { randomCuts: 100 }), {
    content: 'tail',
    calls: [{ name: 'a', arguments: body.slice(2) }],
  });
});

test('marker stream: text is released as it comes, holding back only a possible marker', () => {
  const stream = sectioned.stream();
  assert.deepEqual(stream.push('Hello <'), { content: 'Hello ', calls: [] });
  assert.deepEqual(stream.push('b> and <s'), { content: '<b> and ', calls: [] });
  assert.deepEqual(stream.push('>\n'), { content: '', calls: [] });
  assert.deepEqual(stream.push('<c>a:{}</c>'), {
    content: '',
    calls: [{ index: 0, name: 'a', arguments: '{}' }],
  });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});
