// What the client sees when its (only) worker fails: refused -> 502, too slow -> 504 (and the
// worker's request is aborted), dies mid-stream -> an SSE error event, error status -> passed
// through. Retries are off here; retry behaviour has its own file.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { parseSseData, waitForStats } from '@switchyard/sim/testing';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function setup(flags: string[] = []): Promise<{ worker: SimWorker; gateway: Gateway }> {
  const worker = await startSimWorker({ model: 'sim-model', ttftMs: 5, itlMs: 5 });
  const gateway = await startTestGateway([
    '--disable-retries',
    ...flags,
    '--worker-urls',
    worker.url,
  ]);
  cleanup.push(
    () => worker.close(),
    () => gateway.close(),
  );
  await waitForReadyWorkers(gateway, 1);
  return { worker, gateway };
}

const chat = (stream = false) => ({
  model: 'sim-model',
  messages: [{ role: 'user', content: 'hello there' }],
  max_tokens: 8,
  stream,
});

test("a worker that refuses connections gives SMG's 500 call_upstream_connection_failed", async () => {
  const { worker, gateway } = await setup();
  await worker.close();
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/chat/completions`, chat()),
    500,
    'call_upstream_connection_failed',
  );
  const metrics = await scrapeMetrics(gateway);
  assert.equal(metricValue(metrics, 'smg_worker_errors_total', { error_type: 'connection' }), 1);
  await assertAllReleased(gateway);
});

test("a worker that never answers gives SMG's 504 call_upstream_timeout and its request is aborted", async () => {
  const { worker, gateway } = await setup(['--request-timeout-secs', '1']);
  worker.setFaults({ hang: true });
  const started = Date.now();
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/chat/completions`, chat()),
    504,
    'call_upstream_timeout',
  );
  assert.ok(Date.now() - started >= 900, 'answered before the deadline');
  await waitForStats(worker, (s) => s.aborted === 1 && s.running === 0);
  await assertAllReleased(gateway);
});

test('a worker dying mid-stream ends the SSE stream with an error event, not a hang', async () => {
  const { worker, gateway } = await setup();
  worker.setFaults({ dropAfterChunks: 2 });
  const res = await postJson(`${gateway.url}/v1/chat/completions`, chat(true));
  assert.equal(res.status, 200);
  const events = parseSseData(await res.text());
  assert.equal(events.length, 3, `events: ${JSON.stringify(events)}`);
  const last = JSON.parse(events[2] ?? '{}') as { error?: { code?: string } };
  assert.equal(last.error?.code, 'upstream_stream_failed');
  const metrics = await scrapeMetrics(gateway);
  assert.equal(metricValue(metrics, 'smg_worker_errors_total', { error_type: 'stream' }), 1);
  await assertAllReleased(gateway);
});

test('a worker that drops a non-streamed request before answering gives 500 call_upstream_connection_failed', async () => {
  const { worker, gateway } = await setup();
  worker.setFaults({ dropAfterChunks: 0 });
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/chat/completions`, chat()),
    500,
    'call_upstream_connection_failed',
  );
  await assertAllReleased(gateway);
});

test("a worker's error status and body are passed through unchanged", async () => {
  const { worker, gateway } = await setup();
  worker.setFaults({ errorRate: 1, errorStatus: 429 });
  const direct = await postJson(`${worker.url}/v1/chat/completions`, chat());
  const directBody = await direct.text();
  const res = await postJson(`${gateway.url}/v1/chat/completions`, chat());
  assert.equal(res.status, 429);
  assert.equal(await res.text(), directBody);
  assert.equal(
    res.headers.get('x-smg-error-code'),
    null,
    'an upstream error is not a gateway error',
  );
  await assertAllReleased(gateway);
});
