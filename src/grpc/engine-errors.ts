/**
 * gRPC failures as gateway errors: the HTTP status comes from the gRPC code (SMG's table in
 * src/engine/status-map.ts), the error code says which stage failed. A start failure with a
 * retryable status (UNAVAILABLE → 503, RESOURCE_EXHAUSTED → 429, …) is retried on another
 * worker; INVALID_ARGUMENT → 400 is final.
 */
import { EngineCallError, MalformedEngineOutputError } from '../engine/types.js';
import { grpcStatusToHttp } from '../engine/status-map.js';
import { GatewayError } from '../errors/gateway-error.js';

export function startFailure(err: unknown, workerUrl: string): GatewayError {
  if (err instanceof EngineCallError) {
    return new GatewayError(
      'start_generation_failed',
      `Worker ${workerUrl} failed to start generation: ${err.details}`,
      { status: grpcStatusToHttp(err.code) },
    );
  }
  return new GatewayError(
    'start_generation_failed',
    `Worker ${workerUrl} failed to start generation: ${String(err)}`,
  );
}

/** A non-streamed answer whose engine stream failed before it completed. */
export function streamFailure(err: unknown, workerUrl: string): GatewayError {
  if (err instanceof EngineCallError && !(err instanceof MalformedEngineOutputError)) {
    return new GatewayError(
      'worker_stream_failed',
      `Worker ${workerUrl} stream failed: ${err.details}`,
      { status: grpcStatusToHttp(err.code) },
    );
  }
  // Not a gRPC failure: the engine sent a message the client could not read.
  return new GatewayError(
    'worker_stream_failed',
    `Worker ${workerUrl} sent a malformed response: ${String(err)}`,
    { status: 502 },
  );
}
