// --enable-trace on PD pairs: under the request span, one attempt span (internal: it calls no
// worker itself) holding a prefill leg span and a decode leg span (client spans), each naming its
// worker and the rendezvous: the bootstrap room of a parallel pair (SGLang over HTTP and gRPC),
// the KV connector and transfer id of a sequential vLLM pair. Each simulated worker received a
// traceparent (an HTTP header, or gRPC call metadata) whose parent id is its own leg's span.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import { assertAllReleased } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import {
  parseTraceparent,
  spanNamed,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../../helpers/otlp-receiver.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

const closers: (() => Promise<void>)[] = [];

/** A port nobody listens on now, for a worker whose address must be known before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  closers.push(() => r.close());
  return r;
}

function traced(r: OtlpReceiver): string[] {
  return ['--enable-trace', '--otlp-traces-endpoint', r.url, '--disable-retries'];
}

/** One chat request with the client's traceparent, then every span exported for its trace. */
async function tracedChat(pd: PdSetup, r: OtlpReceiver, model: string): Promise<ReceivedSpan[]> {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });
  const reply = await client.chat.completions.create(
    { model, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 4 },
    { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } },
  );
  assert.ok(reply.choices[0]);
  await assertAllReleased(pd.gateway);
  await pd.gateway.close();
  return r.spans.filter((s) => s.traceId === CLIENT_TRACE);
}

interface PdSpans {
  prefill: ReceivedSpan;
  decode: ReceivedSpan;
}

/** The request → attempt → legs tree, and each worker's traceparent naming its leg span. */
function checkTree(
  spans: ReceivedSpan[],
  prefillWorker: SimWorker,
  decodeWorker: SimWorker,
): PdSpans {
  const request = spanNamed(spans, 'POST /v1/chat/completions');
  assert.equal(request.parentSpanId, CLIENT_SPAN);
  assert.equal(request.attributes['http.response.status_code'], 200);
  const attempt = spanNamed(spans, 'attempt');
  assert.equal(attempt.parentSpanId, request.spanId);
  assert.equal(attempt.kind, 1, 'internal: the legs are the calls');
  const prefill = spanNamed(spans, 'prefill leg');
  const decode = spanNamed(spans, 'decode leg');
  for (const [leg, span, worker] of [
    ['prefill', prefill, prefillWorker],
    ['decode', decode, decodeWorker],
  ] as const) {
    assert.equal(span.parentSpanId, attempt.spanId, `${leg} leg under the attempt`);
    assert.equal(span.kind, 3, `${leg}: client`);
    assert.equal(span.attributes['switchyard.pd.leg'], leg);
    assert.equal(span.attributes['switchyard.worker.url'], worker.url);
    assert.equal(span.statusCode === 2, false, `${leg} did not fail`);
    const seen = parseTraceparent(worker.stats().lastRequest?.headers.traceparent);
    assert.equal(seen.traceId, CLIENT_TRACE, `${leg}: the client's trace`);
    assert.equal(seen.parentId, span.spanId, `${leg}: its own leg span is the parent`);
  }
  assert.equal(decode.attributes['switchyard.outcome'], 'complete');
  return { prefill, decode };
}

test('SGLang over HTTP: parallel legs carry the shared bootstrap room', async () => {
  const r = await receiver();
  const pd = await startPdSetup({ flags: traced(r) });
  closers.push(() => pd.close());
  const [p, d] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(p && d);
  const { prefill, decode } = checkTree(await tracedChat(pd, r, 'sim-model'), p, d);
  const room = d.stats().roomsSeen.at(-1);
  assert.equal(decode.attributes['switchyard.pd.bootstrap_room'], room);
  assert.equal(prefill.attributes['switchyard.pd.bootstrap_room'], room);
  assert.equal(prefill.attributes['switchyard.pd.bootstrap_port'], p.bootstrapPort);
});

test('vLLM over HTTP (Mooncake): sequential legs carry the connector and the transfer id', async () => {
  const r = await receiver();
  const connector = 'MooncakeConnector';
  // Registered with its engine id and bootstrap address, so the gateway mints the transfer id.
  const port = await freePort();
  const pd = await startPdSetup({
    flags: traced(r),
    prefill: { runtime: 'vllm', role: 'regular', kvConnector: connector, kvEngineId: 'p0', port },
    decode: { runtime: 'vllm', role: 'regular', kvConnector: connector },
    prefillSpec: { kv_connector: connector, kv_engine_id: 'p0', bootstrap_port: port },
  });
  closers.push(() => pd.close());
  const [p, d] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(p && d);
  const { prefill, decode } = checkTree(await tracedChat(pd, r, 'sim-model'), p, d);
  assert.equal(prefill.attributes['switchyard.pd.kv_connector'], 'mooncake');
  assert.equal(decode.attributes['switchyard.pd.kv_connector'], 'mooncake');
  const sent = d.stats().lastRequest?.body as { kv_transfer_params?: { transfer_id?: string } };
  assert.equal(typeof sent.kv_transfer_params?.transfer_id, 'string');
  assert.equal(
    prefill.attributes['switchyard.pd.kv_transfer_id'],
    sent.kv_transfer_params?.transfer_id,
  );
  assert.equal(
    decode.attributes['switchyard.pd.kv_transfer_id'],
    sent.kv_transfer_params?.transfer_id,
  );
});

test('SGLang over gRPC: the legs go as metadata, with the room on both leg spans', async () => {
  const r = await receiver();
  const pd = await startGrpcPdSetup({ runtime: 'sglang', flags: traced(r) });
  closers.push(() => pd.close());
  const [p, d] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(p && d);
  const { prefill, decode } = checkTree(await tracedChat(pd, r, 'qwen3'), p, d);
  const rooms = decode.attributes['switchyard.pd.bootstrap_room'];
  assert.ok(Array.isArray(rooms) && rooms.length === 1, 'one room per sample');
  assert.deepEqual(prefill.attributes['switchyard.pd.bootstrap_room'], rooms);
});
