/**
 * The seam between the worker layer and the gRPC engine clients (`src/engine/`): the worker
 * layer dials, detects and closes through this interface, and the composition root fills it
 * with the real `connectEngine` / `detectEngineRuntime`. Tests fill it with in-process fakes.
 */
import { ENGINE_RUNTIMES } from '@switchyard/protos';
import type { EngineClient, EngineRuntime } from '../engine/types.js';

export interface GrpcConnector {
  /** A client for the engine at `url` (`grpc://host:port` or `grpcs://host:port`); dials lazily. */
  connect(url: string, runtime: EngineRuntime): EngineClient;
  /**
   * The runtime whose `HealthCheck` answers at `url`, trying `hint` first and then SMG's order
   * (sglang, vllm, tokenspeed); any answer wins, even `healthy: false`. Undefined when none
   * answered within `timeoutMs` (the registration job probes again until its startup timeout).
   * Rejects only for a failure probing again cannot fix; the registration then fails at once.
   */
  detect(
    url: string,
    hint: EngineRuntime | undefined,
    timeoutMs: number,
  ): Promise<EngineRuntime | undefined>;
}

/** Whether a worker runtime has a gRPC engine client. */
export function isEngineRuntime(runtime: string | undefined): runtime is EngineRuntime {
  return runtime !== undefined && (ENGINE_RUNTIMES as readonly string[]).includes(runtime);
}

/** A connector for a gateway built without engine clients: every gRPC registration fails. */
export function unavailableGrpcConnector(reason: string): GrpcConnector {
  return {
    connect: () => {
      throw new Error(reason);
    },
    detect: () => Promise.reject(new Error(reason)),
  };
}
