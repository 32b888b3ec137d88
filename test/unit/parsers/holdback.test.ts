import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findFirst, safeLength } from '../../../src/parsers/holdback.js';

test('safeLength holds back exactly a tail that could grow into a marker', () => {
  assert.equal(safeLength('hello <tool', ['<tool_call>']), 6);
  assert.equal(safeLength('hello <', ['<tool_call>', '<think>']), 6);
  assert.equal(safeLength('hello', ['<tool_call>']), 5);
  assert.equal(safeLength('a <toolx', ['<tool_call>']), 8, 'no longer a prefix: released');
  assert.equal(safeLength('<tool_call', ['<tool_call>']), 0);
  assert.equal(safeLength('', ['<tool_call>']), 0);
});

test('findFirst picks the earliest marker', () => {
  assert.deepEqual(findFirst('ab <b> <a>', ['<a>', '<b>']), { at: 3, marker: '<b>' });
  assert.equal(findFirst('plain', ['<a>']), undefined);
  assert.deepEqual(findFirst('<a><a>', ['<a>'], 1), { at: 3, marker: '<a>' });
});
