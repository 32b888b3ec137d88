import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QwenToolParser } from '../../../src/parsers/tool/qwen.js';

test('streaming a large call in small deltas takes linear time', () => {
  const args = { items: Array.from({ length: 4000 }, (_, i) => ({ id: i, text: 'a "b" c' })) };
  const text = `<tool_call>\n${JSON.stringify({ name: 'f', arguments: args })}\n</tool_call>`;
  const started = performance.now();
  const stream = new QwenToolParser().stream();
  let streamed = '';
  for (let i = 0; i < text.length; i += 4) {
    for (const delta of stream.push(text.slice(i, i + 4)).calls) streamed += delta.arguments ?? '';
  }
  stream.finish();
  // About 0.1 s here; re-reading the whole buffer on every delta took seconds.
  assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
  assert.equal(streamed, JSON.stringify(args));
});
