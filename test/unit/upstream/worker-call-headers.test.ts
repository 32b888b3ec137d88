import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildUpstreamHeaders, workerCallHeaders } from '../../../src/upstream/headers.js';

const client = { via: '1.1 switchyard-x', requestId: 'rid-1' };

test('a call with no client request carries only the worker key', () => {
  assert.deepEqual(workerCallHeaders('k'), { authorization: 'Bearer k' });
  assert.deepEqual(workerCallHeaders(undefined), {});
});

test('a call for a client request carries the loop marker and the request id', () => {
  assert.deepEqual(workerCallHeaders('k', client), {
    authorization: 'Bearer k',
    via: '1.1 switchyard-x',
    'x-request-id': 'rid-1',
  });
});

test("the client's credential is used only for a worker without a key", () => {
  const withCredential = { ...client, clientAuthorization: 'Bearer client' };
  assert.equal(workerCallHeaders(undefined, withCredential).authorization, 'Bearer client');
  assert.equal(workerCallHeaders('k', withCredential).authorization, 'Bearer k');
});

test("inference headers replace a client's x-request-id with the decided id", () => {
  const out = buildUpstreamHeaders(
    { ...client, headers: { 'x-request-id': 'other', traceparent: 't' } },
    'k',
    2,
  );
  assert.equal(out['x-request-id'], 'rid-1');
  assert.equal(out.traceparent, 't');
  assert.equal(out.authorization, 'Bearer k');
  assert.equal(out['content-length'], '2');
});
