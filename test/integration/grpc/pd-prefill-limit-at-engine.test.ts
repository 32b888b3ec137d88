// `--prefill-max-inflight-requests-per-worker` is a promise about the engine: a prefill slot is
// held until the engine has let go of the leg (its stream ended, or it answered the Abort), not
// until the gateway stopped caring. The prefill engines here behave as a Python servicer that
// does not pass a cancel on (`grpcIgnoreCancel`) and answer Abort late (`abortDelayMs`), and hang
// so that every leg times out and is aborted; the engine's own count of open Generates
// (`peakRunning`) must never pass the limit, for SGLang's parallel pair and vLLM's sequence.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { SimRuntime } from '@switchyard/sim';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { generateRequests } from '../../helpers/grpc.js';
import { postJson } from '../../helpers/http.js';
import type { PdSetup } from '../../helpers/pd-fleet.js';

const LIMIT = 2;
const REQUESTS = 6;
const closers: PdSetup[] = [];
after(async () => {
  for (const s of closers) await s.close();
});

async function pair(runtime: SimRuntime): Promise<PdSetup> {
  const vllm = runtime === 'vllm';
  const setup = await startGrpcPdSetup({
    runtime,
    flags: [
      '--prefill-max-inflight-requests-per-worker',
      String(LIMIT),
      '--request-timeout-secs',
      '1',
      '--disable-retries',
      '--disable-circuit-breaker',
    ],
    ...(vllm
      ? {
          prefill: { kvConnector: 'NixlConnector', role: 'regular' },
          decode: { kvConnector: 'NixlConnector', role: 'regular' },
          prefillSpec: { kv_connector: 'NixlConnector' },
        }
      : {}),
  });
  closers.push(setup);
  return setup;
}

describe('prefill admission counts a leg until the engine lets go of it', () => {
  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`${runtime}: timed-out legs keep their slot until their Abort is answered`, async () => {
      const pd = await pair(runtime);
      const prefill = pd.prefills[0];
      assert.ok(prefill);
      // Every leg hangs; a cancel does not free the engine, an Abort does, 300 ms late.
      prefill.setFaults({ hang: true, grpcIgnoreCancel: true, abortDelayMs: 300 });
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, () =>
          postJson(`${pd.gateway.url}/v1/chat/completions`, {
            model: 'qwen3',
            messages: [{ role: 'user', content: 'hi' }],
            max_tokens: 4,
          }),
        ),
      );
      for (const res of answers) {
        assert.equal(res.status, 504, await res.clone().text());
        await res.arrayBuffer();
      }
      assert.equal(generateRequests(prefill).length, REQUESTS, 'every request reached the prefill');
      const stats = prefill.stats();
      assert.ok(
        stats.peakRunning <= LIMIT,
        `the prefill engine held ${stats.peakRunning} requests at once, over the limit of ${LIMIT}`,
      );
      assert.equal(stats.peakRunning, LIMIT, 'the limit was reached, so the test could fail');
      // The last Aborts may still be on their way when their clients have the 504.
      await waitFor(() => (prefill.grpc?.aborts ?? []).length === REQUESTS, 'each leg aborted');
      await assertAllReleased(pd.gateway);
    });
  }
});
