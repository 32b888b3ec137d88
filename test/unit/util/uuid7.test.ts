// UUIDv7 engine-id suffixes: the RFC 9562 layout (version 7, variant 10), the creation time in
// the first 48 bits so ids sort by time, and no repeats across the random pool's refills.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/util/uuid7.js';

test('a UUIDv7 has version 7, the RFC variant and the time in its first 48 bits', () => {
  const id = uuidv7(0x0123456789ab);
  assert.match(id, /^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('ids do not repeat across refills of the random pool, and sort by time', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) seen.add(uuidv7(1_000 + i));
  assert.equal(seen.size, 2000);
  assert.ok(uuidv7(5) < uuidv7(6));
});
