// --enable-trace on regular routing, end to end: a request through the official openai client
// carrying a client traceparent, first sent to a worker that answers 503 and retried on a good
// one. A tiny OTLP/HTTP receiver in the test collects what the gateway exports: one server span
// for the request, child of the client's span in the client's trace, and one attempt span per
// try under it, each naming its worker and outcome. Each worker received a traceparent whose
// parent id is its attempt's span id, and the client's tracestate unchanged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../../helpers/gateway.js';
import {
  parseTraceparent,
  spanNamed,
  startOtlpReceiver,
  type OtlpReceiver,
} from '../../helpers/otlp-receiver.js';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACESTATE = 'congo=t61rcWkgMzE';

let receiver: OtlpReceiver;
let fleet: SimWorker[];
let gateway: Gateway;

before(async () => {
  receiver = await startOtlpReceiver();
  fleet = await startSimFleet(2, { ttftMs: 1, itlMs: 1 });
  gateway = await startTestGateway([
    '--enable-trace',
    '--otlp-traces-endpoint',
    receiver.url,
    '--policy',
    'round_robin',
    '--retry-initial-backoff-ms',
    '1',
    '--worker-urls',
    ...fleet.map((w) => w.url),
  ]);
  await waitForReadyWorkers(gateway, 2);
});

after(async () => {
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
  await receiver.close();
});

test('a retried request exports a request span and one attempt span per try, linked to the client', async () => {
  const [bad, good] = fleet as [SimWorker, SimWorker];
  bad.setFaults({ errorRate: 1, errorStatus: 503 });
  // Round robin starts at the first registered worker: the failing one.
  assert.equal(gateway.internals.registry.all()[0]?.url, bad.url);

  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const reply = await client.completions.create(
    { model: 'sim-model', prompt: 'trace me', max_tokens: 2 },
    { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: TRACESTATE } },
  );
  assert.ok(reply.choices[0]);
  await assertAllReleased(gateway);
  // Shutdown exports what the batch still holds.
  await gateway.close();

  const spans = receiver.spans.filter((s) => s.traceId === CLIENT_TRACE);
  const request = spanNamed(spans, 'POST /v1/completions');
  assert.equal(request.parentSpanId, CLIENT_SPAN, "the request span is the client span's child");
  assert.equal(request.kind, 2, 'server');
  assert.equal(request.service, 'switchyard');
  assert.equal(request.attributes['http.route'], '/v1/completions');
  assert.equal(request.attributes['http.response.status_code'], 200);
  assert.equal(request.attributes['gen_ai.request.model'], 'sim-model');
  assert.equal(typeof request.attributes['switchyard.request_id'], 'string');
  assert.equal(request.attributes['error.type'], undefined);

  const attempts = spans
    .filter((s) => s.name === 'attempt')
    .sort(
      (a, b) =>
        Number(a.attributes['switchyard.attempt']) - Number(b.attributes['switchyard.attempt']),
    );
  assert.equal(attempts.length, 2, 'one span per try');
  const [first, second] = attempts as [(typeof attempts)[0], (typeof attempts)[0]];
  for (const a of attempts) {
    assert.equal(a.parentSpanId, request.spanId, 'attempts are children of the request');
    assert.equal(a.kind, 3, 'client: the attempt is the call to the worker');
  }
  assert.equal(first.attributes['switchyard.worker.url'], bad.url);
  assert.equal(first.attributes['http.response.status_code'], 503);
  assert.equal(first.attributes['switchyard.outcome'], 'discarded');
  assert.equal(first.statusCode, 2, 'the failed try is an error');
  assert.equal(second.attributes['switchyard.worker.url'], good.url);
  assert.equal(second.attributes['http.response.status_code'], 200);
  assert.equal(second.attributes['switchyard.outcome'], 'complete');

  // Each worker's traceparent: the client's trace, with its own attempt span as the parent.
  for (const [worker, attempt] of [
    [bad, first],
    [good, second],
  ] as const) {
    const seen = worker.stats().lastRequest?.headers ?? {};
    const parsed = parseTraceparent(seen.traceparent);
    assert.equal(parsed.traceId, CLIENT_TRACE);
    assert.equal(parsed.parentId, attempt.spanId);
    assert.equal(seen.tracestate, TRACESTATE, 'tracestate passes on unchanged');
  }
});
