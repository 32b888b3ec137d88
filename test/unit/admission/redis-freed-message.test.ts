/**
 * The announcement a Redis store publishes when units free: `<origin> <total> <key>`, the key
 * last so that any character in it (a worker key is a URL) survives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFreed } from '../../../src/admission/store/redis-scripts.js';

test('parses origin, total and a key holding spaces and colons', () => {
  assert.deepEqual(parseFreed('a1b2c3 5 decode:http://10.0.0.1:30000/x y'), {
    origin: 'a1b2c3',
    total: 5,
    key: 'decode:http://10.0.0.1:30000/x y',
  });
});

test('ignores a malformed message', () => {
  assert.equal(parseFreed('garbage'), undefined);
  assert.equal(parseFreed('origin notanumber key'), undefined);
});
