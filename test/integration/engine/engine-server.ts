/**
 * A real grpc-js server on 127.0.0.1:0 serving one or more engine services with the handlers a
 * test gives; methods left out answer UNIMPLEMENTED, as a server without them would.
 */
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '@switchyard/kit';
import { engineService, type EngineRuntime } from '@switchyard/protos';
import { connectEngine } from '../../../src/engine/connect.js';
import type { EngineClient, GenerateInput } from '../../../src/engine/types.js';
import { silentLogger } from '../../../src/observability/logger.js';

export type Handlers = grpc.UntypedServiceImplementation;

export interface EngineServer {
  port: number;
  url: string;
  close: () => void;
}

export async function startEngineServer(
  services: Partial<Record<EngineRuntime, Handlers>>,
): Promise<EngineServer> {
  const server = new grpc.Server();
  for (const [runtime, handlers] of Object.entries(services)) {
    server.addService(engineService(runtime as EngineRuntime).service, handlers);
  }
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  return { port, url: `grpc://127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/** A unary handler answering `response`, recording each request into `seen`. */
export function unary(response: object, seen?: unknown[]): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    seen?.push(call.request);
    callback(null, response);
  };
}

/** A one-token streamed chat request with the given engine request id. */
export function streamedInput(id: string): GenerateInput {
  return {
    kind: 'chat',
    requestId: id,
    inputIds: [1],
    originalText: 'a',
    stream: true,
    sampling: {
      stop: [],
      stopTokenIds: [],
      ignoreEos: false,
      noStopTrim: false,
      n: 1,
      skipSpecialTokens: true,
      spacesBetweenSpecialTokens: true,
    },
  };
}

/** An SGLang chunk of one token, as a server writes it. */
export const ONE_TOKEN_CHUNK = { request_id: 'x', chunk: { token_ids: [7], completion_tokens: 1 } };

export type StreamCall = grpc.ServerWritableStream<Record<string, unknown>, unknown>;

/** A client on a ManualClock and a server whose Generates wait for the test to write to them. */
export interface GenerateRig {
  client: EngineClient;
  clock: ManualClock;
  /** The server side of each Generate, in arrival order. */
  streams: StreamCall[];
  /** A HealthCheck round trip: anything the client sent before it has reached the server. */
  roundTrip(): Promise<void>;
  close: () => void;
}

/** A rig for `runtime` whose server answers Abort with `abort`. */
export async function startGenerateRig(
  runtime: EngineRuntime,
  abort: grpc.handleUnaryCall<unknown, unknown>,
): Promise<GenerateRig> {
  const streams: StreamCall[] = [];
  const server = await startEngineServer({
    [runtime]: {
      Generate: (call: StreamCall) => {
        streams.push(call);
        call.on('cancelled', () => undefined);
      },
      Abort: abort,
      HealthCheck: unary({ healthy: true }),
    },
  });
  const clock = new ManualClock();
  const client = connectEngine(server.url, runtime, { clock, logger: silentLogger() });
  return {
    client,
    clock,
    streams,
    roundTrip: async () => void (await client.healthCheck(5_000)),
    close: () => {
      client.close();
      server.close();
    },
  };
}
