// Without --enable-trace the gateway builds no tracer and exports nothing, even with a receiver
// listening at the default-looking address, and the client's traceparent and tracestate reach
// the worker exactly as sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startGatewayFor } from '../../helpers/gateway.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let receiver: OtlpReceiver;
let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  receiver = await startOtlpReceiver();
  worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  // The endpoint is given, tracing is not: the endpoint alone turns nothing on.
  gateway = await startGatewayFor(worker.url, ['--otlp-traces-endpoint', receiver.url]);
});

after(async () => {
  await gateway.close();
  await worker.close();
  await receiver.close();
});

test("tracing off: the client's trace context passes unchanged and nothing is exported", async () => {
  assert.equal(gateway.internals.tracer, undefined, 'no tracer is built');
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  await client.completions.create(
    { model: 'sim-model', prompt: 'untraced', max_tokens: 2 },
    { headers: { traceparent: TRACEPARENT, tracestate: 'k=v' } },
  );
  const seen = worker.stats().lastRequest?.headers ?? {};
  assert.equal(seen.traceparent, TRACEPARENT);
  assert.equal(seen.tracestate, 'k=v');
  await assertAllReleased(gateway);
  await gateway.close();
  assert.equal(receiver.posts, 0, 'no export request reached the receiver');
});
