import assert from 'node:assert/strict';
import { test } from 'node:test';
import { passthrough } from '../../../src/parsers/reasoning/passthrough.js';

const text = '  <think>cot</think>answer  \n';

test('passthrough: the whole answer is content, markers and whitespace verbatim', () => {
  for (const inReasoning of [false, true]) {
    assert.deepEqual(passthrough.parse(text, { inReasoning }), { reasoning: '', content: text });
  }
});

test('passthrough: each delta is content as it arrives, nothing held', () => {
  const s = passthrough.stream({ inReasoning: true });
  assert.deepEqual(s.push('  <think>cot'), { reasoning: '', content: '  <think>cot' });
  assert.deepEqual(s.push('</think>answer  \n'), { reasoning: '', content: '</think>answer  \n' });
  assert.deepEqual(s.push('<thi'), { reasoning: '', content: '<thi' });
  assert.deepEqual(s.finish(), { reasoning: '', content: '' });
});

test('passthrough: no markers, never begins inside a block', () => {
  assert.equal(passthrough.name, 'passthrough');
  assert.equal(passthrough.startTag, '');
  assert.equal(passthrough.endTag, '');
  assert.equal(passthrough.alwaysStartsInReasoning, false);
});
