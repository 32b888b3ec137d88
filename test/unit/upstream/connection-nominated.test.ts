// The helpers every relay path (regular, proxied GET, PD decode relay, rewritten SSE) uses to
// drop headers a `Connection` header nominates (RFC 9110 §7.6.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  connectionNominated,
  dropConnectionNominated,
  relayResponseHeaders,
} from '../../../src/upstream/headers.js';

test('Connection tokens are parsed case-insensitively, across repeated values', () => {
  assert.deepEqual(
    [...(connectionNominated(['Keep-Alive, X-A', ' x-b ,close']) ?? [])],
    ['x-a', 'x-b'],
  );
  assert.equal(connectionNominated('keep-alive'), undefined);
  assert.equal(connectionNominated(undefined), undefined);
});

test('relayResponseHeaders drops the upstream headers its Connection header names', () => {
  const out = relayResponseHeaders(
    {
      connection: 'keep-alive, X-Secret',
      'x-secret': 'internal',
      'content-type': 'text/event-stream',
      'keep-alive': 'timeout=5',
    },
    { 'x-request-id': 'r' },
  );
  assert.deepEqual(out, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
});

test('dropConnectionNominated copies only when something is nominated', () => {
  const plain = { connection: 'keep-alive', 'x-request-id': 'a' };
  assert.equal(dropConnectionNominated(plain), plain);
  assert.deepEqual(
    dropConnectionNominated({ connection: 'x-request-id', 'x-request-id': 'a', traceparent: 't' }),
    {
      connection: 'x-request-id',
      traceparent: 't',
    },
  );
});
