// Request-loop protection: a gateway that is its own worker through another gateway, or through
// a load balancer in front of it, sees its own `Via` marker come back and answers 508
// loop_detected, so one client request makes a small fixed number of upstream requests instead of
// a runaway. (Its own address is refused at registration: worker-url-own-address tests.)
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { startRecordingWorker, type RecordingWorker } from '../helpers/recording-worker.js';

// A concurrency cap bounds the damage should loop protection ever regress: the test then fails
// quickly instead of flooding the machine. The self-registered gateway keeps retries on (a 508
// must not be retried); the pair has none, since nested retries through two gateways would
// multiply on a regression.
const CAPPED = ['--max-concurrent-requests', '8', '--queue-size', '0', '--disable-load-monitoring'];
const RETRYING = [
  ...CAPPED,
  '--retry-max-retries',
  '2',
  '--retry-initial-backoff-ms',
  '1',
  '--retry-max-backoff-ms',
  '5',
];
const MODEL = 'loop-model';
const body = { model: MODEL, prompt: 'x', max_tokens: 1 };

let a: Gateway;
let b: Gateway;
let self: Gateway;
let balancer: Forwarder;
let engine: RecordingWorker;

interface Forwarder {
  url: string;
  close(): Promise<void>;
}

/** A TCP forwarder in front of a gateway, as a load balancer is: its address is not the gateway's. */
async function startForwarder(target: string): Promise<Forwarder> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket
        .on('error', () => undefined)
        .on('close', () => {
          sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function register(gateway: Gateway, url: string): Promise<void> {
  const res = await postJson(`${gateway.url}/workers`, { url, models: [{ id: MODEL }] });
  assert.equal(res.status, 202, await res.text());
  await waitFor(
    () => gateway.internals.registry.all().some((w) => w.url === url && w.isHealthy),
    `${url} ready`,
  );
}

/**
 * The client gets the refusing gateway's 508 relayed back along the chain: the body keeps its
 * `loop_detected` code, while the `x-smg-error-code` header, a worker's statement to the relaying
 * gateway, is not relayed (only the gateway that minted an error sets that header).
 */
async function assertLoopAnswer(res: Response): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 508, text);
  assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'loop_detected');
}

async function completionRequests(gateway: Gateway): Promise<number> {
  return (
    metricValue(await scrapeMetrics(gateway), 'smg_http_requests_total', {
      method: 'POST',
      path: '/v1/completions',
    }) ?? 0
  );
}

before(async () => {
  a = await startTestGateway([...CAPPED, '--disable-retries']);
  b = await startTestGateway([...CAPPED, '--disable-retries']);
  self = await startTestGateway(RETRYING);
  await register(a, b.url);
  await register(b, a.url);
  // The gateway's own URL is refused at registration; the balancer's address is not its own.
  balancer = await startForwarder(self.url);
  await register(self, balancer.url);
  engine = await startRecordingWorker();
  const added = await postJson(`${self.url}/workers`, { url: engine.url });
  assert.equal(added.status, 202);
  await waitFor(
    () => self.internals.registry.all().some((w) => w.url === engine.url && w.isHealthy),
    'engine ready',
  );
});

after(async () => {
  await Promise.all([a.close(), b.close(), self.close(), engine.close()]);
  await balancer.close();
});

test('two gateways listing each other answer 508 after one round trip', async () => {
  await assertLoopAnswer(await postJson(`${a.url}/v1/completions`, body));
  // client -> A -> B -> A (refused): A saw two requests, B one.
  assert.equal(await completionRequests(a), 2);
  assert.equal(await completionRequests(b), 1);
});

test('a gateway reachable as its own worker through a load balancer answers 508 after one hop', async () => {
  await assertLoopAnswer(await postJson(`${self.url}/v1/completions`, body));
  assert.equal(await completionRequests(self), 2);
});

test("another gateway's Via entries are kept and do not trigger the refusal", async () => {
  const res = await postJson(`${self.url}/v1/completions`, body, {
    via: '1.1 switchyard-0000000000000000, 1.0 edge-proxy',
  });
  await assertLoopAnswer(res);
  assert.equal(
    await completionRequests(self),
    4,
    'the request was forwarded once, then refused on its return',
  );
});

test("a worker receives the client's Via entries followed by this gateway's marker", async () => {
  const res = await postJson(
    `${self.url}/v1/completions`,
    { model: 'recorded-model', prompt: 'x', max_tokens: 1 },
    { via: '1.0 edge-proxy' },
  );
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(
    engine.to('/v1/completions').at(-1)?.headers.via,
    `1.0 edge-proxy, 1.1 ${self.internals.hop.pseudonym}`,
  );
});

test('no load lease is left behind', async () => {
  for (const g of [a, b, self]) await assertAllReleased(g);
});
