// SMG's own command line, `--enable-trace --otlp-traces-endpoint host:port`, exports over
// OTLP/gRPC (plaintext, as SMG's tonic exporter): a tiny grpc-js receiver in the test takes the
// TraceService/Export calls and decodes their protobuf. One request through the official openai
// client: its request span starts a new trace, the attempt span is the request span's child, and
// the worker's traceparent names the attempt span.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startGatewayFor } from '../../helpers/gateway.js';
import { startOtlpGrpcReceiver, type OtlpGrpcReceiver } from '../../helpers/otlp-grpc-receiver.js';
import { parseTraceparent, spanNamed, tracingFlags } from '../../helpers/otlp-receiver.js';

let receiver: OtlpGrpcReceiver;
let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  receiver = await startOtlpGrpcReceiver();
  worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  gateway = await startGatewayFor(worker.url, tracingFlags(receiver.address));
});

after(async () => {
  await gateway.close();
  await worker.close();
  await receiver.close();
});

test('a bare host:port endpoint receives the spans over OTLP/gRPC', async () => {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const reply = await client.chat.completions.create({
    model: 'sim-model',
    messages: [{ role: 'user', content: 'trace me over gRPC' }],
    max_tokens: 2,
  });
  assert.ok(reply.choices[0]);
  await assertAllReleased(gateway);
  // Shutdown exports what the batch still holds.
  await gateway.close();

  assert.ok(receiver.requests.length >= 1, 'the receiver got an Export call');
  const request = spanNamed(receiver.spans, 'POST /v1/chat/completions');
  assert.equal(request.parentSpanId, '', 'no client traceparent: the request span is a root');
  assert.match(request.traceId, /^[0-9a-f]{32}$/);
  assert.match(request.spanId, /^[0-9a-f]{16}$/);
  assert.equal(request.kind, 2, 'server');
  assert.equal(request.service, 'switchyard');
  assert.equal(request.attributes['http.response.status_code'], 200);

  const attempt = spanNamed(receiver.spans, 'attempt');
  assert.equal(attempt.traceId, request.traceId);
  assert.equal(attempt.parentSpanId, request.spanId, 'the attempt is the request span’s child');
  assert.equal(attempt.kind, 3, 'client');
  assert.equal(attempt.attributes['switchyard.worker.url'], worker.url);
  assert.equal(attempt.attributes['switchyard.outcome'], 'complete');

  const seen = parseTraceparent(worker.stats().lastRequest?.headers.traceparent);
  assert.equal(seen.traceId, request.traceId);
  assert.equal(seen.parentId, attempt.spanId, "the worker's traceparent names the attempt span");
});
