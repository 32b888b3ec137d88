// A client that leaves a non-streamed gRPC request is not the worker's failure: the engine call
// is aborted, and the worker's circuit breaker hears nothing, so impatient clients in front of a
// slow engine cannot take a healthy worker out of rotation. The engine here is a minimal SGLang
// service on loopback that sends its headers at once and then nothing, so the gateway is inside
// the collection of a started call when the client leaves.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { engineService } from '@switchyard/protos';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcGateway } from '../../helpers/grpc.js';
import { repoPath } from '../../helpers/repo-root.js';

const TINY = repoPath('packages', 'sim', 'assets', 'tiny-tokenizer');
let server: grpc.Server;
let url: string;
const received: string[] = [];
const aborted: string[] = [];
let gateway: Gateway;

type Unary = grpc.handleUnaryCall<Record<string, unknown>, Record<string, unknown>>;

before(async () => {
  server = new grpc.Server();
  const answer =
    (value: Record<string, unknown>): Unary =>
    (_call, done) =>
      done(null, value);
  server.addService(engineService('sglang').service, {
    HealthCheck: answer({ healthy: true, message: 'ok' }),
    GetModelInfo: answer({ served_model_name: 'm', tokenizer_path: TINY, is_generation: true }),
    GetServerInfo: answer({}),
    Abort: ((call, done) => {
      aborted.push(String(call.request.request_id));
      done(null, { success: true });
    }) as Unary,
    // Headers at once, then nothing until the gateway cancels.
    Generate: (call: grpc.ServerWritableStream<Record<string, unknown>, unknown>) => {
      received.push(String(call.request.request_id));
      call.sendMetadata(new grpc.Metadata());
      call.on('cancelled', () => call.end());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  url = `grpc://127.0.0.1:${port}`;
  gateway = await startGrpcGateway([{ url }], ['--cb-failure-threshold', '1']);
});

after(async () => {
  await gateway.close();
  server.forceShutdown();
});

test('clients that leave started non-streamed requests leave the breaker closed', async () => {
  for (let i = 0; i < 2; i++) {
    const controller = new AbortController();
    const from = received.length;
    const pending = fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await waitFor(() => received.length > from, 'the engine got the request');
    controller.abort();
    assert.ok((await pending) instanceof Error);
    const id = received[from] as string;
    await waitFor(() => aborted.includes(id), `an Abort for ${id}`);
  }
  await assertAllReleased(gateway);
  const [worker] = gateway.internals.registry.all();
  assert.equal(worker?.url, url);
  assert.equal(worker.circuit.state, 'closed');
});
