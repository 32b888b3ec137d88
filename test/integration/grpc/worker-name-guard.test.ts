// A gRPC worker given by name is resolved through the gateway's connect-time guard every time
// its channel resolves, as HTTP workers are on every connection: once the name resolves to the
// cloud metadata address (DNS rebinding), that resolution is refused and the channel never
// connects there (grpc-js keeps the addresses of its last good resolution, which the guard
// allowed). The name is `localhost`, answered by an injected lookup, so nothing ever leaves
// loopback; without the guarded resolver grpc-js would resolve it itself and never ask.
import assert from 'node:assert/strict';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { startSimGrpcWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { startTestGateway, waitFor } from '../../helpers/gateway.js';
import { waitForReadiness } from '../../helpers/grpc.js';

const METADATA = '169.254.169.254';
const attempted: string[] = [];
subscribe('net.client.socket', (message) => {
  const { socket } = message as { socket: Socket };
  socket.on('connectionAttempt', (ip: string) => attempted.push(ip));
});

let answer = ['127.0.0.1'];
const answered: string[][] = [];
const lookup = (host: string): Promise<string[]> => {
  if (host !== 'localhost') return Promise.reject(new Error(`ENOTFOUND ${host}`));
  answered.push(answer);
  return Promise.resolve(answer);
};

let engine: SimWorker;
let gateway: Gateway;

before(async () => {
  engine = await startSimGrpcWorker({ runtime: 'sglang', ttftMs: 1, itlMs: 1 });
  const port = new URL(engine.url.replace('grpc:', 'http:')).port;
  gateway = await startTestGateway(
    ['--worker-urls', `grpc://localhost:${port}`, '--disable-retries'],
    { lookup },
  );
  await waitForReadiness(gateway);
});

after(async () => {
  await gateway.close();
  await engine.close();
});

const chat = () =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }),
  });

test('a gRPC worker name is re-resolved through the guard, and a rebound address is never dialled', async () => {
  const ok = await chat();
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
  const port = Number(new URL(engine.url.replace('grpc:', 'http:')).port);
  // The name now resolves elsewhere, and the engine's connection drops (a restart on its port):
  // the channel must resolve again before it reconnects.
  answer = [METADATA];
  await engine.close();
  engine = await startSimGrpcWorker({ runtime: 'sglang', ttftMs: 1, itlMs: 1, port });
  await waitFor(async () => {
    const res = await chat();
    await res.arrayBuffer();
    return answered.some((a) => a.includes(METADATA));
  }, 'the channel to resolve the name again through the guard');
  for (let i = 0; i < 3; i++) await (await chat()).arrayBuffer();
  assert.ok(!attempted.includes(METADATA), 'no connection was attempted to the refused address');
});
