import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonMinifier, minifyJson } from '../../../src/parsers/tool/json-minify.js';

const TEXT = '{ "a b" : [ 1 ,\n\t2.50 ] , "s" : "x \\" y\\\\" ,\r\n "e": "\\u00e9 " }';
const MINIFIED = '{"a b":[1,2.50],"s":"x \\" y\\\\","e":"\\u00e9 "}';

test('whitespace between tokens goes, strings and numbers stay as written', () => {
  assert.equal(minifyJson(TEXT), MINIFIED);
  assert.deepEqual(JSON.parse(MINIFIED), JSON.parse(TEXT));
  assert.equal(minifyJson('{}'), '{}');
});

test('fed in pieces cut anywhere (inside strings and escapes too), the output is the same', () => {
  for (let size = 1; size <= 5; size++) {
    const minifier = new JsonMinifier();
    let out = '';
    for (let i = 0; i < TEXT.length; i += size) out += minifier.push(TEXT.slice(i, i + size));
    assert.equal(out, MINIFIED);
  }
});
