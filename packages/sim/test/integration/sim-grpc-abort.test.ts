// Abort and cancellation on gRPC workers: an Abort RPC ends the sequence (each unfinished index
// completes with finish_reason 'abort'), frees its engine slot and is recorded with its ids and
// reason; a client that cancels its call frees the slot too; GetLoads follows the running
// requests. The worker runs on a ManualClock, so nothing finishes behind a test's back.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type * as grpc from '@grpc/grpc-js';
import { ManualClock } from '@switchyard/kit';
import type { EngineRuntime } from '@switchyard/protos';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';
import type { EngineClient } from '../helpers/grpc-client.js';
import { collect, engineClient, generateRequest, parts, unary } from '../helpers/grpc-client.js';

let w: SimWorker | undefined;
let c: EngineClient | undefined;

async function start(
  runtime: EngineRuntime,
  extra: Parameters<typeof startSimWorker>[0] = {},
): Promise<{ w: SimWorker; c: EngineClient; clock: ManualClock }> {
  const clock = new ManualClock();
  w = await startSimWorker({ protocol: 'grpc', runtime, ttftMs: 10, itlMs: 10, clock, ...extra });
  c = engineClient(runtime, w.url);
  return { w, c, clock };
}

async function running(client: EngineClient): Promise<number> {
  const res = await unary(client, 'GetLoads', { include: ['core'] });
  const loads = res['loads'] as Record<string, unknown>[];
  return Number(loads[0]?.['num_running_reqs'] ?? 0);
}

void describe('gRPC abort', () => {
  afterEach(async () => {
    c?.close();
    await w?.close();
  });

  void it('SGLang Abort ends the stream with an abort complete, frees the slot, records the reason', async () => {
    const { w, c, clock } = await start('sglang');
    const done = collect(c, 'Generate', generateRequest('sglang', { id: 'a-1', max: 100, n: 2 }));
    await waitForStats(w, (s) => s.running === 1);
    clock.advance(10);
    assert.equal(await running(c), 2);
    const res = await unary(c, 'Abort', { request_id: 'a-1', reason: 'Stream dropped' });
    assert.equal(res['success'], true);
    const r = await done;
    assert.equal(r.code, 0);
    const { chunks, completes } = parts(r.messages);
    assert.equal(chunks.length, 2);
    assert.deepEqual(
      completes.map((m) => [m['index'] ?? 0, m['finish_reason']]),
      [
        [0, 'abort'],
        [1, 'abort'],
      ],
    );
    assert.deepEqual(w.grpc?.aborts, [
      { requestIds: ['a-1'], reason: 'Stream dropped', matched: 1 },
    ]);
    assert.equal(await running(c), 0);
    const s = await waitForStats(w, (st) => st.running === 0);
    assert.equal(s.aborted, 1);
  });

  void it('vLLM Abort takes a list of ids, has no reason and answers an empty message', async () => {
    const { w, c } = await start('vllm');
    const one = collect(c, 'Generate', generateRequest('vllm', { id: 'v-1', max: 100 }));
    const two = collect(c, 'Generate', generateRequest('vllm', { id: 'v-2', max: 100 }));
    await waitForStats(w, (s) => s.running === 2);
    assert.deepEqual(await unary(c, 'Abort', { request_ids: ['v-1', 'v-2', 'gone'] }), {});
    for (const r of await Promise.all([one, two])) {
      assert.equal(parts(r.messages).completes[0]?.['finish_reason'], 'abort');
    }
    assert.deepEqual(w.grpc?.aborts, [
      { requestIds: ['v-1', 'v-2', 'gone'], reason: undefined, matched: 2 },
    ]);
    assert.equal(await running(c), 0);
  });

  void it('TokenSpeed Abort of an unknown id is recorded and answers not found', async () => {
    const { w, c } = await start('tokenspeed');
    const res = await unary(c, 'Abort', { request_id: 'nobody', reason: 'x' });
    assert.deepEqual(res, { success: true, message: 'not found' });
    assert.deepEqual(w.grpc?.aborts, [{ requestIds: ['nobody'], reason: 'x', matched: 0 }]);
  });

  void it('a client that cancels its call frees the slot and counts one abort', async () => {
    const { w, c, clock } = await start('sglang');
    let call: grpc.ClientReadableStream<Record<string, unknown>> | undefined;
    const done = collect(c, 'Generate', generateRequest('sglang', { max: 100 }), (k) => {
      call = k;
    });
    await waitForStats(w, (s) => s.running === 1);
    clock.advance(10);
    assert.equal(await running(c), 1);
    call?.cancel();
    await done;
    const s = await waitForStats(w, (st) => st.running === 0 && st.aborted === 1);
    assert.equal(s.completed, 0);
    assert.equal(await running(c), 0);
    // The engine no longer ticks for it.
    clock.advance(1_000);
    assert.equal(clock.size, 0);
    assert.deepEqual(w.grpc?.aborts, []);
  });

  for (const [label, faults] of [
    ['running', { grpcIgnoreCancel: true }],
    ['stalled', { grpcIgnoreCancel: true, grpcStallAfterTokens: 1 }],
  ] as const) {
    void it(`closing the worker ends a ${label} call whose cancel was ignored`, async () => {
      const { w, c, clock } = await start('sglang', { faults });
      let call: grpc.ClientReadableStream<Record<string, unknown>> | undefined;
      const done = collect(c, 'Generate', generateRequest('sglang', { max: 100 }), (k) => {
        call = k;
      });
      await waitForStats(w, (s) => s.running === 1);
      clock.advance(10);
      clock.advance(10);
      call?.cancel();
      await done;
      // The cancel reached the worker and was ignored: the call still holds its place.
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(w.stats().running, 1);
      await w.close();
      const s = w.stats();
      assert.equal(s.running, 0);
      assert.equal(s.aborted, 1);
      assert.equal(s.completed, 0);
    });
  }

  void it('GetLoads follows the running and waiting requests of the engine', async () => {
    const { w, c, clock } = await start('tokenspeed', { maxRunningRequests: 2 });
    const calls = [1, 2, 3].map((i) =>
      collect(c, 'Generate', generateRequest('tokenspeed', { id: `l-${i}`, max: 2 })),
    );
    await waitForStats(w, (s) => s.running === 3);
    const res = await unary(c, 'GetLoads', {});
    const load = (res['loads'] as Record<string, unknown>[])[0] ?? {};
    assert.equal(res['dp_rank_count'], 1);
    assert.equal(load['dp_rank'] ?? 0, 0);
    assert.equal(load['num_running_reqs'], 2);
    assert.equal(load['num_waiting_reqs'], 1);
    assert.equal(load['max_running_requests'], 2);
    assert.ok(Number(load['num_used_tokens']) > 0);
    for (let i = 0; i < 6; i++) clock.advance(10);
    for (const r of await Promise.all(calls)) assert.equal(r.code, 0);
    assert.equal(await running(c), 0);
  });

  void it('the slow-Abort fault answers, and cancels, only after its delay', async () => {
    const { w, c, clock } = await start('sglang', {
      ttftMs: 10_000,
      faults: { abortDelayMs: 500 },
    });
    const done = collect(c, 'Generate', generateRequest('sglang', { id: 's-1', max: 1000 }));
    await waitForStats(w, (s) => s.running === 1);
    let answered = false;
    const abort = unary(c, 'Abort', { request_id: 's-1', reason: 'r' }).then(() => {
      answered = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false);
    assert.equal(w.grpc?.aborts.length, 1, 'recorded on arrival');
    clock.advance(500);
    await abort;
    assert.equal(parts((await done).messages).completes[0]?.['finish_reason'], 'abort');
  });
});
