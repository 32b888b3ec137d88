/**
 * Entry points for the worker layer: dial an engine by URL, and find out which runtime's
 * service it serves by probing `HealthCheck` as SMG does (`detect_backend.rs`).
 */
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '@switchyard/kit';
import { ENGINE_RUNTIMES, engineService, type EngineRuntime } from '@switchyard/protos';
import type { Logger } from '../observability/logger.js';
import { CHANNEL_OPTIONS, channelCredentials, parseEngineUrl } from './channel.js';
import { GrpcEngineClient } from './grpc-engine-client.js';
import type { EngineClient } from './types.js';

/** A client for the engine at `grpc://host:port` (plain) or `grpcs://host:port` (TLS). */
export function connectEngine(
  url: string,
  runtime: EngineRuntime,
  deps: { clock: Clock; logger: Logger },
): EngineClient {
  const { target, secure } = parseEngineUrl(url);
  return new GrpcEngineClient(runtime, target, channelCredentials(secure), deps);
}

type HealthCheckMethod = (
  req: object,
  options: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null) => void,
) => unknown;

type ProbeOutcome = 'answered' | 'wrong-service' | 'unreachable';

/**
 * The runtime whose `HealthCheck` answers first: the hint, then sglang → vllm → tokenspeed.
 * Any response wins (`healthy` is not read: a draining engine is still that engine); an error
 * such as UNIMPLEMENTED means another service, so the next is tried. An unreachable server gives
 * undefined at once rather than a timeout per runtime. One channel serves every probe and
 * `timeoutMs` bounds them all.
 */
export async function detectEngineRuntime(
  url: string,
  hint: EngineRuntime | undefined,
  timeoutMs: number,
): Promise<EngineRuntime | undefined> {
  const { target, secure } = parseEngineUrl(url);
  const credentials = channelCredentials(secure);
  const channel = new grpc.Channel(target, credentials, CHANNEL_OPTIONS);
  const deadline = Date.now() + timeoutMs;
  const order =
    hint === undefined ? ENGINE_RUNTIMES : [hint, ...ENGINE_RUNTIMES.filter((r) => r !== hint)];
  try {
    for (const runtime of order) {
      const outcome = await probe(runtime, target, credentials, channel, deadline);
      if (outcome === 'answered') return runtime;
      if (outcome === 'unreachable') return undefined;
    }
    return undefined;
  } finally {
    channel.close();
  }
}

function probe(
  runtime: EngineRuntime,
  target: string,
  credentials: grpc.ChannelCredentials,
  channel: grpc.Channel,
  deadline: number,
): Promise<ProbeOutcome> {
  const Stub = engineService(runtime);
  // Not closed: closing a client closes its channel, which the other probes share.
  const stub = new Stub(target, credentials, { channelOverride: channel });
  const healthCheck = (stub as unknown as Record<string, HealthCheckMethod>)
    .HealthCheck as HealthCheckMethod;
  return new Promise((resolve) => {
    healthCheck.call(stub, {}, { deadline }, (err) => {
      if (err === null) resolve('answered');
      else if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
        resolve('unreachable');
      } else resolve('wrong-service');
    });
  });
}
