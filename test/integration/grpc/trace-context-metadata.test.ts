// The client's W3C trace context reaches gRPC engines as call metadata (`traceparent`,
// `tracestate`), as it reaches HTTP workers as headers: on a regular gRPC worker and on both legs
// of a gRPC PD pair (SGLang in parallel, vLLM in sequence). Tracing is off here, so the values
// are the client's, unchanged; a request without them sends no metadata of the kind.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import { assertAllReleased } from '../../helpers/gateway.js';
import { startGrpcGateway, startQwenEngine } from '../../helpers/grpc.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import type { Gateway } from '../../../src/server/gateway.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const TRACESTATE = 'vendor=opaque,other=1';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function chat(gateway: Gateway, headers: Record<string, string>): Promise<void> {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const reply = await client.chat.completions.create(
    { model: 'qwen3', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 },
    { headers },
  );
  assert.ok(reply.choices[0], 'the request was answered');
}

function lastMetadata(engine: SimWorker): Record<string, unknown> {
  return engine.stats().lastRequest?.headers ?? {};
}

test('a regular gRPC worker gets the client trace context as metadata', async () => {
  const engine = await startQwenEngine();
  closers.push(() => engine.close());
  const gateway = await startGrpcGateway([engine]);
  closers.push(() => gateway.close());

  await chat(gateway, { traceparent: TRACEPARENT, tracestate: TRACESTATE });
  assert.equal(lastMetadata(engine).traceparent, TRACEPARENT);
  assert.equal(lastMetadata(engine).tracestate, TRACESTATE);

  await chat(gateway, {});
  assert.equal(lastMetadata(engine).traceparent, undefined, 'none invented when tracing is off');
  assert.equal(lastMetadata(engine).tracestate, undefined);
  await assertAllReleased(gateway);
});

for (const runtime of ['sglang', 'vllm'] as const) {
  test(`both legs of a ${runtime} gRPC PD pair get the client trace context`, async () => {
    const pd = await startGrpcPdSetup({ runtime, flags: ['--disable-retries'] });
    closers.push(() => pd.close());
    const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
    assert.ok(prefill && decode);

    await chat(pd.gateway, { traceparent: TRACEPARENT, tracestate: TRACESTATE });
    for (const [leg, engine] of [
      ['prefill', prefill],
      ['decode', decode],
    ] as const) {
      assert.equal(lastMetadata(engine).traceparent, TRACEPARENT, `${leg} traceparent`);
      assert.equal(lastMetadata(engine).tracestate, TRACESTATE, `${leg} tracestate`);
    }
    await assertAllReleased(pd.gateway);
  });
}
