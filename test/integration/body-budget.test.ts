// --max-buffered-body-bytes: the request-body bytes held at once are bounded gateway-wide. A body
// that cannot fit is answered 503 request_body_budget_exhausted (before any byte is read when its
// length is declared, mid-read when it is chunked); the bytes come back when the response closes,
// however the request ended, so the budget reads zero once the clients are gone.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { startSimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { assertBodyTimeout, COMPLETION_BODY, partialRequest } from '../helpers/slow-clients.js';

const BUDGET = 4096;

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(extra: string[] = []): Promise<Gateway> {
  const worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  const gateway = await startTestGateway([
    '--max-buffered-body-bytes',
    String(BUDGET),
    '--worker-urls',
    worker.url,
    ...extra,
  ]);
  cleanup.push(
    () => gateway.close(),
    () => worker.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return gateway;
}

/** A valid completions body of exactly `bytes` bytes (the prompt is padding). */
function bodyOf(bytes: number): string {
  const empty = JSON.stringify({ model: 'sim-model', prompt: '', max_tokens: 1 });
  return JSON.stringify({
    model: 'sim-model',
    prompt: 'x'.repeat(bytes - empty.length),
    max_tokens: 1,
  });
}

async function assertBudgetExhausted(res: Response): Promise<void> {
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal(res.headers.get('connection'), 'close');
  await assertGatewayError(res, 503, 'request_body_budget_exhausted');
}

async function waitForBudgetUse(gateway: Gateway, bytes: number): Promise<void> {
  await waitFor(() => gateway.internals.bodyBudget.used === bytes, `${bytes} buffered body bytes`);
  const gauge = metricValue(await scrapeMetrics(gateway), 'smg_http_buffered_body_bytes');
  assert.equal(gauge, bytes);
}

test('partial bodies that reserve most of the budget make a large body 503 while a small one succeeds', async () => {
  const gateway = await setup();
  const held = [
    partialRequest(gateway, 10, undefined, bodyOf(1800)),
    partialRequest(gateway, 10, undefined, bodyOf(1800)),
  ];
  await waitForBudgetUse(gateway, 3600);

  await assertBudgetExhausted(await postJson(`${gateway.url}/v1/completions`, bodyOf(1000)));
  const small = await postJson(`${gateway.url}/v1/completions`, COMPLETION_BODY);
  assert.equal(small.status, 200, await small.text());
  await waitForBudgetUse(gateway, 3600);

  for (const r of held) r.socket.destroy();
  await Promise.all(held.map((r) => r.answer));
  await waitForBudgetUse(gateway, 0);
  const large = await postJson(`${gateway.url}/v1/completions`, bodyOf(3000));
  assert.equal(large.status, 200, await large.text());
  await waitForBudgetUse(gateway, 0);
  const m = await scrapeMetrics(gateway);
  const labels = { status_code: '503', error_code: 'request_body_budget_exhausted' };
  assert.equal(metricValue(m, 'smg_http_responses_total', labels), 1);
  await assertAllReleased(gateway);
});

test('a partial body cut by the body deadline (408) gives its bytes back', async () => {
  const gateway = await setup(['--request-body-timeout-secs', '1']);
  const partial = partialRequest(gateway, 10, undefined, bodyOf(4000));
  await waitForBudgetUse(gateway, 4000);
  assertBodyTimeout(await partial.answer);
  await waitForBudgetUse(gateway, 0);
  const large = await postJson(`${gateway.url}/v1/completions`, bodyOf(4000));
  assert.equal(large.status, 200, await large.text());
  await waitForBudgetUse(gateway, 0);
  await assertAllReleased(gateway);
});

test('a chunked body that crosses the budget mid-read gets 503 and the connection closes', async () => {
  const gateway = await setup();
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });
  const chunk = (data: string): string => `${data.length.toString(16)}\r\n${data}\r\n`;
  socket.write(
    `POST /v1/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
      `transfer-encoding: chunked\r\n\r\n${chunk('{"prompt":"' + 'x'.repeat(3000))}`,
  );
  await waitForBudgetUse(gateway, 3011);
  socket.write(chunk('x'.repeat(2000)));
  const text = await answer;
  assert.match(text, /^HTTP\/1\.1 503 /, `expected a 503, got: ${text.slice(0, 200)}`);
  const [head = ''] = text.split('\r\n\r\n');
  assert.match(head, /\r\nx-smg-error-code: request_body_budget_exhausted\r\n/i);
  assert.match(head, /\r\nretry-after: 1\r\n/i);
  assert.match(head, /\r\nconnection: close\r\n/i);
  await waitForBudgetUse(gateway, 0);
  await assertAllReleased(gateway);
});

test('admin bodies are charged to the same budget', async () => {
  const gateway = await setup();
  const spec = JSON.stringify({ url: 'http://127.0.0.1:1', labels: { pad: 'x'.repeat(3000) } });
  const partial = partialRequest(gateway, 10, '/workers', spec);
  await waitForBudgetUse(gateway, Buffer.byteLength(spec));
  await assertBudgetExhausted(await postJson(`${gateway.url}/v1/completions`, bodyOf(1500)));
  await assertBudgetExhausted(await postJson(`${gateway.url}/workers`, bodyOf(1500)));
  partial.socket.destroy();
  await partial.answer;
  await waitForBudgetUse(gateway, 0);
  await assertAllReleased(gateway);
});
