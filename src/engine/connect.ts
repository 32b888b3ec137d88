/**
 * Entry points for the worker layer: dial an engine by URL, and find out which runtime's
 * service it serves by probing `HealthCheck` as SMG does (`detect_backend.rs`).
 */
import { isIP, type LookupFunction } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '@switchyard/kit';
import { ENGINE_RUNTIMES, engineService, type EngineRuntime } from '@switchyard/protos';
import type { Logger } from '../observability/logger.js';
import { CHANNEL_OPTIONS, channelCredentials, parseEngineUrl } from './channel.js';
import { GrpcEngineClient } from './grpc-engine-client.js';
import { GUARDED_LOOKUP_OPTION, GUARDED_SCHEME } from './guarded-resolver.js';
import type { EngineClient } from './types.js';

/**
 * net.connect's `lookup` that refuses forbidden worker addresses (workers/connect-guard.ts); a
 * named host is then resolved through it on every (re)resolution of the channel.
 */
export type GuardLookup = LookupFunction;

/** The dial target and options: a named host goes through the guarded resolver. */
function dialTarget(
  target: string,
  lookup: GuardLookup | undefined,
): { target: string; options: grpc.ChannelOptions } {
  const host = target.startsWith('[') ? target.slice(1, target.indexOf(']')) : target.split(':')[0];
  // An IP literal was judged at registration and cannot change; a name can.
  if (lookup === undefined || isIP(host ?? '') !== 0) return { target, options: {} };
  return { target: `${GUARDED_SCHEME}:${target}`, options: { [GUARDED_LOOKUP_OPTION]: lookup } };
}

/** A client for the engine at `grpc://host:port` (plain) or `grpcs://host:port` (TLS). */
export function connectEngine(
  url: string,
  runtime: EngineRuntime,
  deps: { clock: Clock; logger: Logger; lookup?: GuardLookup | undefined },
): EngineClient {
  const parsed = parseEngineUrl(url);
  const { target, options } = dialTarget(parsed.target, deps.lookup);
  return new GrpcEngineClient(runtime, target, channelCredentials(parsed.secure), {
    clock: deps.clock,
    logger: deps.logger,
    channelOptions: options,
  });
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
  lookup?: GuardLookup,
): Promise<EngineRuntime | undefined> {
  const parsed = parseEngineUrl(url);
  const { target, options } = dialTarget(parsed.target, lookup);
  const credentials = channelCredentials(parsed.secure);
  const channel = new grpc.Channel(target, credentials, { ...CHANNEL_OPTIONS, ...options });
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
