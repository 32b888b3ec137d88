/**
 * The gRPC half of a registration job (SMG `detect_backend.rs` + `discover_metadata.rs`): detect
 * the runtime by `HealthCheck` probing, the spec's runtime first, until one answers or the
 * startup timeout passes; then read the labels through that runtime's engine client.
 */
import type { Logger } from '../../observability/logger.js';
import type { EngineClients } from '../engine-clients.js';
import { isEngineRuntime } from '../grpc-connector.js';
import type { WorkerSpec } from '../spec.js';
import { discoverGrpcMetadata } from './grpc-metadata.js';
import type { DiscoveredMetadata } from './metadata.js';
import type { StartupWait } from './startup-wait.js';

const DISCOVERY_TIMEOUT_MS = 10_000;

export interface GrpcRegistrationDeps {
  clients: EngineClients | undefined;
  healthTimeoutMs: number;
  /** With health checks disabled and a runtime given, nothing is probed. */
  healthDisabled: boolean;
  wait: StartupWait;
  /** Re-checks the worker's address before each contact (target-guard.ts); throws if refused. */
  assertAllowed: (url: string) => Promise<void>;
  signal: AbortSignal;
  logger: Logger;
}

export async function discoverGrpcWorker(
  spec: WorkerSpec,
  deps: GrpcRegistrationDeps,
): Promise<DiscoveredMetadata> {
  const { clients } = deps;
  if (!clients) throw new Error('This gateway has no gRPC engine clients');
  const given = spec.runtime ?? spec.runtime_type;
  const hint = isEngineRuntime(given) ? given : undefined;
  if (given !== undefined && given !== 'unspecified' && hint === undefined) {
    throw new Error(
      `Worker ${spec.url}: runtime ${given} has no gRPC client here (sglang, vllm, tokenspeed)`,
    );
  }
  let runtime = deps.healthDisabled ? hint : undefined;
  while (runtime === undefined) {
    await deps.assertAllowed(spec.url);
    // A rejection is a failure probing again cannot fix (no gRPC client at all): it fails the job.
    runtime = await clients.detect(spec.url, hint, deps.healthTimeoutMs);
    if (runtime === undefined) await deps.wait.next();
  }
  deps.signal.throwIfAborted();
  await deps.assertAllowed(spec.url);
  const client = clients.forUrl(spec.url, runtime);
  const meta = await discoverGrpcMetadata(client, runtime, DISCOVERY_TIMEOUT_MS, (message) =>
    deps.logger.warn({ worker: spec.url, err: message }, 'gRPC server info unavailable'),
  );
  return { runtime, models: meta.models, labels: meta.labels };
}
