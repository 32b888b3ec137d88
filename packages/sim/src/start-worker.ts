// The one entry point that starts a simulated worker: the protocol option picks the HTTP surface
// (http-server.ts) or the gRPC service (grpc-server.ts); both run the same engines and faults.
import type { SimWorker, SimWorkerOptions } from './options.js';
import { startGrpcServer } from './grpc-server.js';
import { startSimHttpWorker } from './http-server.js';
import { resolveSimOptions } from './resolve-options.js';

/** Starts one simulated worker; resolves once it listens. */
export async function startSimWorker(opts?: SimWorkerOptions): Promise<SimWorker> {
  const resolved = resolveSimOptions(opts);
  return resolved.protocol === 'grpc'
    ? startGrpcServer(resolved, opts?.clock)
    : startSimHttpWorker(resolved, opts);
}

/**
 * Starts one gRPC worker: `startSimWorker` with `protocol: 'grpc'`. Its `url` is
 * `grpc://127.0.0.1:PORT` and `worker.grpc` holds the requests and aborts it received.
 */
export function startSimGrpcWorker(opts: SimWorkerOptions = {}): Promise<SimWorker> {
  return startSimWorker({ ...opts, protocol: 'grpc' });
}
