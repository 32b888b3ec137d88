import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fnv1a64Bytes,
  fnv1a64Text,
  fnv1a64Tokens,
  ringPosition,
} from '../../../src/policies/hash.js';

void describe('fnv1a64', () => {
  void it('matches the published FNV-1a 64 test vectors', () => {
    assert.equal(fnv1a64Bytes(new Uint8Array()), 'cbf29ce484222325');
    assert.equal(fnv1a64Bytes(Buffer.from('a')), 'af63dc4c8601ec8c');
    assert.equal(fnv1a64Bytes(Buffer.from('foobar')), '85944171f73967e8');
  });

  void it('hashes text as its UTF-16LE bytes, up to a unit limit', () => {
    const text = 'héllo 😀 world';
    assert.equal(fnv1a64Text(text), fnv1a64Bytes(Buffer.from(text, 'utf16le')));
    assert.equal(fnv1a64Text(text, 5), fnv1a64Bytes(Buffer.from(text.slice(0, 5), 'utf16le')));
  });

  void it('hashes tokens as little-endian u32 bytes, up to a token limit', () => {
    const tokens = [1, 258, 0xffffffff, 70000];
    const bytes = Buffer.alloc(16);
    tokens.forEach((t, i) => bytes.writeUInt32LE(t, i * 4));
    assert.equal(fnv1a64Tokens(tokens), fnv1a64Bytes(bytes));
    assert.equal(fnv1a64Tokens(tokens, 2), fnv1a64Bytes(bytes.subarray(0, 8)));
  });
});

void describe('ringPosition', () => {
  void it('is a stable non-negative 53-bit integer', () => {
    const p = ringPosition('http://w1:8000#0');
    assert.equal(p, ringPosition('http://w1:8000#0'));
    assert.ok(Number.isSafeInteger(p) && p >= 0);
    assert.notEqual(p, ringPosition('http://w1:8000#1'));
  });
});
