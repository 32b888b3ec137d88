/**
 * The engine protocols as grpc-js service definitions, loaded at run time from the `.proto`
 * files beside this package's `dist/`. The gateway's engine clients and the simulator's servers
 * load the same files with the same options, so both ends agree on the wire by construction.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export type EngineRuntime = 'sglang' | 'vllm' | 'tokenspeed';
export const ENGINE_RUNTIMES: readonly EngineRuntime[] = ['sglang', 'vllm', 'tokenspeed'];

/** The folder holding `common.proto` and the three engine files. */
export const PROTO_DIR = fileURLToPath(new URL('../proto/', import.meta.url));

/** Each engine's file and fully-qualified service name (`/<package>.<Service>/<Rpc>`). */
export const ENGINE_PROTOS: Readonly<Record<EngineRuntime, { file: string; service: string }>> = {
  sglang: { file: 'sglang_scheduler.proto', service: 'sglang.grpc.scheduler.SglangScheduler' },
  vllm: { file: 'vllm_engine.proto', service: 'vllm.grpc.engine.VllmEngine' },
  tokenspeed: {
    file: 'tokenspeed_scheduler.proto',
    service: 'tokenspeed.grpc.scheduler.TokenSpeedScheduler',
  },
};

/**
 * keepCase keeps the snake_case wire names; longs as strings so a 63-bit bootstrap room or seed
 * never passes through a JS number; oneofs adds the virtual field naming the member that is set;
 * no defaults, so an unset proto3 `optional` stays distinguishable from zero.
 */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  oneofs: true,
  defaults: false,
  includeDirs: [PROTO_DIR],
};

const loaded = new Map<EngineRuntime, grpc.ServiceClientConstructor>();

/** The client constructor (with `.service`, the definition a server adds) of one engine. */
export function engineService(runtime: EngineRuntime): grpc.ServiceClientConstructor {
  let ctor = loaded.get(runtime);
  if (ctor === undefined) {
    const spec = ENGINE_PROTOS[runtime];
    const definition = protoLoader.loadSync(spec.file, PROTO_LOADER_OPTIONS);
    const root = grpc.loadPackageDefinition(definition);
    ctor = lookup(root, spec.service) as grpc.ServiceClientConstructor;
    loaded.set(runtime, ctor);
  }
  return ctor;
}

function lookup(root: grpc.GrpcObject, dotted: string): unknown {
  let node: unknown = root;
  for (const part of dotted.split('.')) {
    node = (node as Record<string, unknown> | undefined)?.[part];
  }
  if (typeof node !== 'function') throw new Error(`service ${dotted} is not in its proto file`);
  return node;
}
