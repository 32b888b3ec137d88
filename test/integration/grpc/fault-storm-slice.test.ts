// A short slice of the gRPC fault storm (bench/grpc-faults runs the long one): regular SGLang, an
// SGLang PD pair and a vLLM NIXL pair, each under a seeded schedule of engine faults (start
// UNAVAILABLE/INTERNAL, mid-stream failures and stalls, hangs, slow engines) with some clients
// leaving mid-answer, on engines that free a request only on its Abort. Whatever the timing, the promises hold: every request ends (none hung, none cut),
// no internal error, every cancelled engine call gets its Abort, the prefill engines never run
// more than the admission limit nor the decode engines more than their window, and every lease
// comes back.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import { startGrpcGateway, startQwenEngine } from '../../helpers/grpc.js';
import { inProcessStormEngine, type EngineTotals } from '../../helpers/grpc-storm-engines.js';
import { runStorm, type StormEngine, type StormResult } from '../../helpers/grpc-storm.js';

const PREFILL_LIMIT = 3;
const DECODE_WINDOW = 8;
const FLAGS = [
  '--request-timeout-secs',
  '2',
  '--retry-max-retries',
  '2',
  '--retry-initial-backoff-ms',
  '20',
  '--pd-admission-wait-secs',
  '5',
  '--disable-circuit-breaker',
];

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function storm(gateway: Gateway, workers: readonly SimWorker[], seed: number) {
  const engines: StormEngine[] = workers.map((w, i) => inProcessStormEngine(w, `engine-${i}`));
  const result = await runStorm({
    url: gateway.url,
    model: 'qwen3',
    engines,
    requests: 80,
    concurrency: 12,
    seed,
    faultEvery: 4,
    // Three attempts of 2 s, the admission waits, and a grace.
    hardDeadlineMs: 20_000,
    leaveRate: 0.1,
    // Engines as SMG's abort-on-drop assumes them: a cancel alone frees nothing; Abort does.
    baseFaults: { grpcIgnoreCancel: true, abortDelayMs: 20 },
  });
  return { result, engines };
}

function assertAnswered(r: StormResult): void {
  assert.equal(r.hung, 0, `no request may hang: ${JSON.stringify(r.outcomes)}`);
  for (const outcome of Object.keys(r.outcomes)) {
    assert.ok(!outcome.startsWith('transport'), `a cut connection: ${outcome}`);
    assert.ok(outcome !== '200 cut', 'a stream ended without [DONE]');
    assert.ok(!outcome.includes('internal_error'), `an internal error: ${outcome}`);
  }
  assert.ok((r.outcomes['200'] ?? 0) > 0, `some requests succeed: ${JSON.stringify(r.outcomes)}`);
  assert.ok(Object.keys(r.faultsApplied).length >= 3, 'the schedule put several kinds of fault');
}

/** Every call an engine saw cancelled while open got its Abort, once the storm is over. */
async function assertAborted(engines: readonly StormEngine[]): Promise<EngineTotals[]> {
  const totals: EngineTotals[] = [];
  for (const e of engines) {
    let c = await e.counts();
    await waitFor(
      async () => {
        c = await e.counts();
        return c.abortedIds >= c.cancelled && c.running === 0;
      },
      `${e.name}: ${JSON.stringify(c)}`,
    );
    totals.push({ name: e.name, role: e.role, ...c });
  }
  return totals;
}

describe('gRPC fault storm, short slice', () => {
  it('regular SGLang engines', async () => {
    const workers = [await startQwenEngine(), await startQwenEngine()];
    const gateway = await startGrpcGateway(workers, FLAGS);
    closers.push(async () => {
      await gateway.close();
      for (const w of workers) await w.close();
    });
    const { result, engines } = await storm(gateway, workers, 1);
    assertAnswered(result);
    await assertAborted(engines);
    await assertAllReleased(gateway);
  });

  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`a ${runtime} PD pair stays inside its prefill limit and decode window`, async () => {
      const vllm = runtime === 'vllm';
      const pd = await startGrpcPdSetup({
        runtime,
        flags: ['--prefill-max-inflight-requests-per-worker', String(PREFILL_LIMIT), ...FLAGS],
        prefill: {
          ttftMs: 5,
          itlMs: 1,
          ...(vllm ? { kvConnector: 'NixlConnector', role: 'regular' } : {}),
        },
        decode: {
          ttftMs: 5,
          itlMs: 1,
          maxRunningRequests: DECODE_WINDOW,
          ...(vllm ? { kvConnector: 'NixlConnector', role: 'regular' } : {}),
        },
        ...(vllm ? { prefillSpec: { kv_connector: 'NixlConnector' } } : {}),
      });
      closers.push(() => pd.close());
      const { result, engines } = await storm(pd.gateway, [...pd.prefills, ...pd.decodes], 2);
      assertAnswered(result);
      const totals = await assertAborted(engines);
      const [prefill, decode] = totals;
      assert.ok(prefill && decode);
      assert.ok(
        prefill.peakRunning <= PREFILL_LIMIT,
        `the prefill ran ${prefill.peakRunning} at once, over ${PREFILL_LIMIT}`,
      );
      // vLLM's gRPC server info names no running window (its loads do), so only SGLang's decode
      // is gated by decode admission here.
      if (!vllm)
        assert.ok(
          decode.peakRunning <= DECODE_WINDOW,
          `the decode ran ${decode.peakRunning} at once, over its window of ${DECODE_WINDOW}`,
        );
      await assertAllReleased(pd.gateway);
    });
  }
});
