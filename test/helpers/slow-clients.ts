/**
 * Clients that are slow to send their request body (raw `node:net` sockets, so the test controls
 * every byte), and the checks that go with them: the 408 the gateway answers, and that the
 * `--max-concurrent-requests` permits all came back.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import type { Gateway } from '../../src/server/gateway.js';
import { startSimWorker } from '@switchyard/sim';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from './gateway.js';
import { assertGatewayError, postJson } from './http.js';

/** A small, complete completions body for the sim worker. */
export const COMPLETION_BODY = JSON.stringify({ model: 'sim-model', prompt: 'x', max_tokens: 1 });

export interface RawRequest {
  readonly socket: Socket;
  /** Everything the gateway sent, once the connection closed. */
  readonly answer: Promise<string>;
}

/**
 * Opens a raw connection and sends a `POST` head (to `/v1/completions` unless told otherwise)
 * announcing the whole of `body` but only its first `sent` bytes. A guard closes it if the
 * gateway never answers, so a gateway without a body deadline fails the test instead of hanging.
 */
export function partialRequest(
  gateway: Gateway,
  sent: number,
  path = '/v1/completions',
  body = COMPLETION_BODY,
): RawRequest {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, sent)}`,
  );
  const answer = new Promise<string>((resolve) => {
    let text = '';
    const guard = setTimeout(() => socket.destroy(), 20_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(text);
    });
  });
  return { socket, answer };
}

/** Asserts a raw answer is the gateway's 408 request_body_timeout with `connection: close`. */
export function assertBodyTimeout(answer: string): void {
  assert.match(
    answer,
    /^HTTP\/1\.1 408 /,
    `expected a 408, got: ${answer.slice(0, 200) || '(nothing)'}`,
  );
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, /\r\nx-smg-error-code: request_body_timeout\r\n/i);
  assert.match(head, /\r\nconnection: close\r\n/i);
  const parsed = JSON.parse(body) as { error: { code: string; type: string } };
  assert.equal(parsed.error.code, 'request_body_timeout');
  assert.equal(parsed.error.type, 'Request Timeout');
}

/** Waits until the gateway has received the heads of `n` `/v1/completions` requests in all. */
export async function waitForRequestHeads(gateway: Gateway, n: number): Promise<void> {
  await waitFor(async () => {
    const text = await scrapeMetrics(gateway);
    return (metricValue(text, 'smg_http_requests_total', { path: '/v1/completions' }) ?? 0) >= n;
  }, `the gateway to see ${n} inference requests`);
}

/** A streaming request that holds its permit until the returned function is called. */
export async function holdPermit(gateway: Gateway): Promise<() => void> {
  const ac = new AbortController();
  const res = await request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal: ac.signal,
    body: JSON.stringify({ model: 'sim-model', prompt: 'hold', max_tokens: 200, stream: true }),
  });
  assert.equal(res.statusCode, 200);
  res.body.on('error', () => undefined);
  return () => ac.abort();
}

/**
 * For a gateway started with `--max-concurrent-requests <capacity> --queue-size 0`: no permit is
 * held, none was returned twice (exactly `capacity` requests fit, one more is 429), and the
 * admission gauges and worker loads read zero.
 */
export async function assertPermitsIntact(gateway: Gateway, capacity: number): Promise<void> {
  await waitFor(() => gateway.internals.limiter?.inflight === 0, 'no permit held');
  const releases: (() => void)[] = [];
  for (let i = 0; i < capacity; i++) releases.push(await holdPermit(gateway));
  const extra = await postJson(`${gateway.url}/v1/completions`, COMPLETION_BODY);
  await assertGatewayError(extra, 429, 'admission_queue_full');
  for (const release of releases) release();
  await assertAllReleased(gateway);
}

/**
 * A gateway with two `--max-concurrent-requests` permits and no queue, in front of one simulated
 * worker, so every slow-body test can also check its permits; `cleanup` receives the closers.
 */
export async function startTwoPermitGateway(
  flags: string[],
  cleanup: (() => Promise<void>)[],
): Promise<Gateway> {
  const worker = await startSimWorker({ ttftMs: 1, itlMs: 40 });
  const gateway = await startTestGateway([
    '--max-concurrent-requests',
    '2',
    '--queue-size',
    '0',
    ...flags,
    '--worker-urls',
    worker.url,
  ]);
  cleanup.push(
    () => gateway.close(),
    () => worker.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return gateway;
}
