// The body parser bounds nesting depth once, in one pass that respects strings, and refuses
// bytes that are not UTF-8 instead of parsing (and forwarding) U+FFFD-replaced text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { parseJsonObject } from '../../../src/server/body.js';
import { MAX_JSON_DEPTH } from '../../../src/routing/request-limits.js';

function nested(levels: number): string {
  // The object is level 1; each array inside it adds one.
  return `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
}

function refused(raw: string | Buffer, code: string, pattern: RegExp): void {
  assert.throws(
    () => parseJsonObject(Buffer.isBuffer(raw) ? raw : Buffer.from(raw)),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
      assert.equal(err.code, code);
      assert.equal(err.status, 400);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

test(`a body nested ${MAX_JSON_DEPTH} levels parses; one more level is refused naming the limit`, () => {
  assert.ok(parseJsonObject(Buffer.from(nested(MAX_JSON_DEPTH))));
  refused(nested(MAX_JSON_DEPTH + 1), 'invalid_body', new RegExp(`${MAX_JSON_DEPTH} levels`));
});

test('a body nested 100,000 levels is refused, not a stack overflow', () => {
  refused(nested(100_000), 'invalid_body', /nests deeper/);
});

test('brackets and escaped quotes inside strings do not count as nesting', () => {
  const text = '['.repeat(10_000) + '\\"' + '{'.repeat(10_000);
  const body = parseJsonObject(Buffer.from(JSON.stringify({ prompt: text, after: [[1]] })));
  assert.equal(body.prompt, text);
  assert.deepEqual(body.after, [[1]]);
});

test('multi-byte UTF-8 text parses as before', () => {
  assert.deepEqual(parseJsonObject(Buffer.from('{"prompt":"héllo 世界 🎉 [{"}')), {
    prompt: 'héllo 世界 🎉 [{',
  });
});

test('bytes that are not UTF-8 are refused', () => {
  const raw = Buffer.concat([
    Buffer.from('{"prompt":"'),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}'),
  ]);
  refused(raw, 'invalid_json', /UTF-8/);
});
