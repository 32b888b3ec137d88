// `--request-timeout-secs` bounds a gRPC call's whole life, as it bounds an HTTP attempt to its
// last byte: an engine that starts answering and then stalls (fault `grpcStallAfterTokens`)
// ends the client's answer at the deadline (504 whole, an error event streamed) and is sent
// Abort, alone or as the decode leg of an SGLang or vLLM PD pair. Before, a started call had no
// deadline at all and such a request never ended.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { generateRequests, startGrpcGateway, startQwenEngine } from '../../helpers/grpc.js';

const FLAGS = ['--request-timeout-secs', '1', '--disable-retries', '--disable-circuit-breaker'];
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

const body = (stream: boolean) =>
  JSON.stringify({
    model: 'qwen3',
    messages: [
      { role: 'user', content: 'hi <sim-answer>one two three four five six</sim-answer>' },
    ],
    max_tokens: 32,
    stream,
  });

/**
 * Both shapes end with the deadline's own error, never hanging (the client's 10 s signal fails
 * a request that never ends), and the engine got Abort. No wall-clock bound is asserted: a
 * loaded machine may take longer, and the error text already says which timer ended the call.
 */
async function assertBounded(gateway: Gateway, engine: SimWorker): Promise<void> {
  for (const stream of [false, true]) {
    const from = generateRequests(engine).length;
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(stream),
      // Far past the deadline: only a request that never ends reaches it.
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (stream) {
      assert.equal(res.status, 200);
      assert.match(text, /data: \{"error":\{"message":"Stream error: [^"]*request-timeout-secs/);
      assert.ok(text.endsWith('data: [DONE]\n\n'));
    } else {
      // A non-streamed engine call sends its one message at the end, so a stall there is ended
      // by the same deadline while the call is still waiting for its start.
      assert.equal(res.status, 504, text);
      assert.match(text, /"code":"(call_upstream_timeout|decode_worker_failed_to_start)"/);
    }
    const id = (generateRequests(engine)[from] as { request_id: string } | undefined)?.request_id;
    assert.ok(id !== undefined);
    await waitFor(
      () => (engine.grpc?.aborts ?? []).some((a) => a.requestIds.includes(id)),
      'the stalled call was aborted',
    );
  }
}

describe('a started gRPC call ends within --request-timeout-secs', () => {
  it('regular: an engine that stalls mid-answer', async () => {
    const engine = await startQwenEngine({ ttftMs: 1, itlMs: 1 });
    const gateway = await startGrpcGateway([engine], FLAGS);
    closers.push(async () => {
      await gateway.close();
      await engine.close();
    });
    engine.setFaults({ grpcStallAfterTokens: 2 });
    await assertBounded(gateway, engine);
    await assertAllReleased(gateway);
  });

  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`${runtime} PD: a decode that stalls mid-answer`, async () => {
      const vllm = runtime === 'vllm';
      const nixl = vllm ? { kvConnector: 'NixlConnector' as const, role: 'regular' as const } : {};
      const pd = await startGrpcPdSetup({
        runtime,
        flags: FLAGS,
        prefill: nixl,
        decode: nixl,
        ...(vllm ? { prefillSpec: { kv_connector: 'NixlConnector' } } : {}),
      });
      closers.push(() => pd.close());
      const decode = pd.decodes[0];
      assert.ok(decode);
      decode.setFaults({ grpcStallAfterTokens: 2 });
      await assertBounded(pd.gateway, decode);
      await assertAllReleased(pd.gateway);
    });
  }
});
