// --enable-trace when a PD prefill fails: its leg span is exported as a failure (ERROR status,
// `switchyard.outcome` failed, `error.type` the code), not as an abort or a normal drain. Over
// gRPC the prefill fails to start; over HTTP it sends its head and then drops the connection.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import {
  spanNamed,
  startOtlpReceiver,
  tracingFlags,
  type OtlpReceiver,
} from '../../helpers/otlp-receiver.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  closers.push(() => r.close());
  return r;
}

const traced = (r: OtlpReceiver): string[] => [...tracingFlags(r.url), '--disable-retries'];

/** One chat request that must fail; then the gateway is closed so every span is exported. */
async function failingChat(pd: PdSetup, model: string): Promise<void> {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });
  await assert.rejects(
    client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello there' }],
      max_tokens: 4,
    }),
    (err: { status?: number }) => (err.status ?? 0) >= 500,
  );
  await assertAllReleased(pd.gateway);
  await pd.gateway.close();
}

async function failedPrefillLeg(r: OtlpReceiver): Promise<void> {
  await waitFor(() => r.spans.some((s) => s.name === 'prefill leg'), 'the prefill leg span');
  const prefill = spanNamed(r.spans, 'prefill leg');
  assert.equal(prefill.statusCode, 2, 'ERROR status');
  assert.equal(prefill.attributes['switchyard.outcome'], 'failed');
  assert.equal(typeof prefill.attributes['error.type'], 'string');
  assert.match(String(prefill.attributes['error.type']), /prefill/);
}

test('gRPC: a prefill that fails to start ends its leg span as failed', async () => {
  const r = await receiver();
  const pd = await startGrpcPdSetup({
    runtime: 'sglang',
    flags: traced(r),
    prefill: { faults: { errorRate: 1, errorStatus: 503 } },
  });
  closers.push(() => pd.close());
  await failingChat(pd, 'qwen3');
  await failedPrefillLeg(r);
});

test('HTTP: a prefill that drops after its head ends its leg span as failed', async () => {
  const r = await receiver();
  const pd = await startPdSetup({
    flags: traced(r),
    prefill: { faults: { dropAfterHead: true } },
    decode: { ttftMs: 200 },
  });
  closers.push(() => pd.close());
  await failingChat(pd, 'sim-model');
  await failedPrefillLeg(r);
});
