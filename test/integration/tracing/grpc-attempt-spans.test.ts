// --enable-trace on a regular gRPC worker: the request span and its attempt span are exported,
// and the engine receives, as Generate call metadata, a traceparent in the client's trace whose
// parent id is the attempt span (so the engine's spans nest under the gateway's) and the
// client's tracestate unchanged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import { startGrpcGateway, startQwenEngine } from '../../helpers/grpc.js';
import {
  parseTraceparent,
  spanNamed,
  startOtlpReceiver,
  type OtlpReceiver,
} from '../../helpers/otlp-receiver.js';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
let engine: SimWorker;
let gateway: Gateway;

before(async () => {
  receiver = await startOtlpReceiver();
  engine = await startQwenEngine();
  gateway = await startGrpcGateway(
    [engine],
    ['--enable-trace', '--otlp-traces-endpoint', receiver.url],
  );
});

after(async () => {
  await gateway.close();
  await engine.close();
  await receiver.close();
});

test('a gRPC attempt span is the parent the engine sees in its metadata', async () => {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const stream = await client.chat.completions.create(
    { model: 'qwen3', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4, stream: true },
    { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'k=v' } },
  );
  for await (const _ of stream);
  await assertAllReleased(gateway);
  await gateway.close();

  const spans = receiver.spans.filter((s) => s.traceId === CLIENT_TRACE);
  const request = spanNamed(spans, 'POST /v1/chat/completions');
  assert.equal(request.parentSpanId, CLIENT_SPAN);
  assert.equal(request.attributes['http.response.status_code'], 200);
  const attempt = spanNamed(spans, 'attempt');
  assert.equal(attempt.parentSpanId, request.spanId);
  assert.equal(attempt.attributes['switchyard.worker.url'], engine.url);
  assert.equal(attempt.attributes['switchyard.outcome'], 'complete');

  const metadata = engine.stats().lastRequest?.headers ?? {};
  const parsed = parseTraceparent(metadata.traceparent);
  assert.equal(parsed.traceId, CLIENT_TRACE);
  assert.equal(parsed.parentId, attempt.spanId);
  assert.equal(metadata.tracestate, 'k=v');
});
