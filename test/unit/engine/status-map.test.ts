// Every gRPC code lands on SMG's HTTP status (reference §5.4); the retry executor depends on
// UNAVAILABLE being a 503 and INVALID_ARGUMENT a 400.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { grpcStatusToHttp } from '../../../src/engine/status-map.js';

test('each gRPC code maps to the HTTP status SMG answers with', () => {
  const expected: [number, number][] = [
    [status.OK, 200],
    [status.INVALID_ARGUMENT, 400],
    [status.FAILED_PRECONDITION, 400],
    [status.OUT_OF_RANGE, 400],
    [status.CANCELLED, 400],
    [status.UNAUTHENTICATED, 401],
    [status.PERMISSION_DENIED, 403],
    [status.NOT_FOUND, 404],
    [status.ALREADY_EXISTS, 409],
    [status.ABORTED, 409],
    [status.RESOURCE_EXHAUSTED, 429],
    [status.UNAVAILABLE, 503],
    [status.DEADLINE_EXCEEDED, 504],
    [status.UNIMPLEMENTED, 501],
    [status.INTERNAL, 500],
    [status.UNKNOWN, 500],
    [status.DATA_LOSS, 500],
  ];
  for (const [code, http] of expected) assert.equal(grpcStatusToHttp(code), http, status[code]);
  assert.equal(grpcStatusToHttp(99), 500);
});
