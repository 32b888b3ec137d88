/**
 * gRPC status → HTTP status, as SMG maps an engine's failure (`utils/tonic_ext.rs`). The
 * retry executor reads the HTTP status, so this table also decides what is retried: UNAVAILABLE
 * (a worker that cannot be reached) becomes 503 and is retried on another worker, while
 * INVALID_ARGUMENT (the request itself is wrong) becomes 400 and is not.
 */
import { status } from '@grpc/grpc-js';

const HTTP_BY_GRPC: ReadonlyMap<number, number> = new Map([
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
]);

/** The HTTP status for a gRPC status code; a code outside the table is a 500. */
export function grpcStatusToHttp(code: number): number {
  return HTTP_BY_GRPC.get(code) ?? 500;
}
