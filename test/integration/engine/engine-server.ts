/**
 * A real grpc-js server on 127.0.0.1:0 serving one or more engine services with the handlers a
 * test gives; methods left out answer UNIMPLEMENTED, as a server without them would.
 */
import * as grpc from '@grpc/grpc-js';
import { engineService, type EngineRuntime } from '@switchyard/protos';
import type { GenerateInput } from '../../../src/engine/types.js';

export type Handlers = grpc.UntypedServiceImplementation;

export interface EngineServer {
  port: number;
  url: string;
  close(): void;
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
