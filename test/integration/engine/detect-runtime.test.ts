// Runtime detection by HealthCheck probing (reference §5.1): the service that answers wins, the
// hint is probed first, `healthy` is not read, and a closed port gives undefined at once.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, test } from 'node:test';
import type * as grpc from '@grpc/grpc-js';
import { ENGINE_RUNTIMES } from '@switchyard/protos';
import { detectEngineRuntime } from '../../../src/engine/connect.js';
import { startEngineServer, unary, type EngineServer } from './engine-server.js';

const servers: EngineServer[] = [];
after(() => servers.forEach((s) => s.close()));

async function started(s: Promise<EngineServer>): Promise<EngineServer> {
  const server = await s;
  servers.push(server);
  return server;
}

test('each runtime is detected with no hint, and with a wrong hint', async () => {
  for (const runtime of ENGINE_RUNTIMES) {
    // An unhealthy answer still identifies the service.
    const server = await started(
      startEngineServer({ [runtime]: { HealthCheck: unary({ healthy: false, message: 'x' }) } }),
    );
    assert.equal(await detectEngineRuntime(server.url, undefined, 5_000), runtime);
    const wrong = ENGINE_RUNTIMES.find((r) => r !== runtime);
    assert.equal(await detectEngineRuntime(server.url, wrong, 5_000), runtime);
  }
});

test('the hint is probed first', async () => {
  const probed: string[] = [];
  const answer =
    (name: string): grpc.handleUnaryCall<unknown, unknown> =>
    (_call, callback) => {
      probed.push(name);
      callback(null, { healthy: true });
    };
  const server = await started(
    startEngineServer({
      sglang: { HealthCheck: answer('sglang') },
      tokenspeed: { HealthCheck: answer('tokenspeed') },
    }),
  );
  assert.equal(await detectEngineRuntime(server.url, 'tokenspeed', 5_000), 'tokenspeed');
  assert.equal(await detectEngineRuntime(server.url, undefined, 5_000), 'sglang');
  assert.deepEqual(probed, ['tokenspeed', 'sglang']);
});

test('a server that serves none of the runtimes gives undefined', async () => {
  const server = await started(startEngineServer({}));
  assert.equal(await detectEngineRuntime(server.url, undefined, 5_000), undefined);
});

test('a closed port gives undefined without waiting out the timeout per runtime', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as { port: number };
      s.close(() => resolve(p));
    });
  });
  const t0 = Date.now();
  assert.equal(await detectEngineRuntime(`grpc://127.0.0.1:${port}`, 'vllm', 20_000), undefined);
  // Bounded, not timed: far below even one 20 s timeout.
  assert.ok(Date.now() - t0 < 15_000);
});

test('a URL that is not grpc:// or grpcs:// is refused', async () => {
  await assert.rejects(detectEngineRuntime('http://127.0.0.1:1', undefined, 100), TypeError);
});
