import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PythonListEnd } from '../../../src/parsers/tool/python-list-end.js';

/** Where the brackets balance, feeding `text` in pieces of `size`; -1 if they never do. */
function closesAt(text: string, size: number): number {
  const end = new PythonListEnd();
  for (let at = 0; at < text.length; at += size) {
    if (end.closed(text.slice(at, at + size))) return Math.min(at + size, text.length);
  }
  return -1;
}

test('python list end: brackets in strings of every quoting do not count', () => {
  const list = String.raw`[f(a="])}", b='[(', c="""x"]"y""", d='''']''', e="\"]", g=r'\']')]`;
  for (let size = 1; size <= list.length + 1; size++) {
    const at = closesAt(`${list} tail]`, size);
    // The list's `]` is the last character of the piece where it arrives.
    assert.ok(at >= list.length && at < list.length + size, `pieces of ${size}: ${at}`);
  }
});

test('python list end: an unclosed list or string never balances', () => {
  assert.equal(closesAt('[f(a=[1, 2]', 1), -1);
  assert.equal(closesAt('[f(a="])]', 3), -1);
});
