// A real grpc-js client for a simulated gRPC worker, and the two call shapes the tests need:
// collect a server stream to its end (messages plus the final status), and a unary call.
import * as grpc from '@grpc/grpc-js';
import { engineService, type EngineRuntime } from '@switchyard/protos';

type Msg = Record<string, unknown>;

export type EngineClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

export function engineClient(runtime: EngineRuntime, url: string): EngineClient {
  const Ctor = engineService(runtime);
  return new Ctor(url.replace(/^grpc:\/\//, ''), grpc.credentials.createInsecure()) as EngineClient;
}

export interface StreamResult {
  messages: Msg[];
  /** Status code at the end: 0 for OK. */
  code: number;
  details: string;
}

/** Runs a server-streaming RPC to its end. */
export function collect(
  client: EngineClient,
  rpc: string,
  req: Msg,
  onCall?: (call: grpc.ClientReadableStream<Msg>) => void,
): Promise<StreamResult> {
  return new Promise((resolve) => {
    const call = client[rpc]?.(req) as grpc.ClientReadableStream<Msg>;
    const messages: Msg[] = [];
    call.on('data', (m: Msg) => messages.push(m));
    call.on('error', (err: grpc.ServiceError) =>
      resolve({ messages, code: err.code, details: err.details }),
    );
    call.on('status', (s: grpc.StatusObject) => {
      if (s.code === grpc.status.OK) resolve({ messages, code: 0, details: s.details });
    });
    onCall?.(call);
  });
}

/** A unary RPC; rejects with the ServiceError. */
export function unary(client: EngineClient, rpc: string, req: Msg = {}): Promise<Msg> {
  return new Promise((resolve, reject) => {
    const fn = client[rpc];
    if (fn === undefined) throw new Error(`no rpc ${rpc}`);
    fn.call(client, req, (err: grpc.ServiceError | null, res: Msg) => {
      if (err !== null) reject(err);
      else resolve(res);
    });
  });
}

/** The chunks and completes of a Generate stream, in order. */
export function parts(messages: Msg[]): { chunks: Msg[]; completes: Msg[] } {
  const chunks: Msg[] = [];
  const completes: Msg[] = [];
  for (const m of messages) {
    if (m['response'] === 'chunk') chunks.push(m['chunk'] as Msg);
    else if (m['response'] === 'complete') completes.push(m['complete'] as Msg);
  }
  return { chunks, completes };
}

export interface GenOptions {
  id?: string;
  ids?: number[];
  max?: number;
  n?: number;
  stream?: boolean;
  stopTokenIds?: number[];
  ignoreEos?: boolean;
}

/** A GenerateRequest for `runtime`, with its own name for the output cap. */
export function generateRequest(runtime: EngineRuntime, o: GenOptions = {}): Msg {
  const sp: Msg = { n: o.n ?? 1 };
  if (o.max !== undefined) sp[runtime === 'vllm' ? 'max_tokens' : 'max_new_tokens'] = o.max;
  if (o.stopTokenIds !== undefined) sp['stop_token_ids'] = o.stopTokenIds;
  if (o.ignoreEos !== undefined) sp['ignore_eos'] = o.ignoreEos;
  return {
    request_id: o.id ?? 'req-1',
    tokenized: { input_ids: o.ids ?? [1, 2, 3] },
    sampling_params: sp,
    stream: o.stream ?? true,
  };
}

/** Every id of one index's chunks, in order. */
export function idsOf(chunks: Msg[], index = 0): number[] {
  return chunks
    .filter((c) => (c['index'] ?? 0) === index)
    .flatMap((c) => (c['token_ids'] as number[] | undefined) ?? []);
}
