// Faults on gRPC workers, through the same setFaults as HTTP: a start failure ends the call with
// the chosen status before any item; a mid-stream failure after k tokens, or right after the
// headers, ends a started call with INTERNAL (or the chosen status); hang holds the call silent
// until the client leaves; maxFires clears a fault; a health fault makes HealthCheck unhealthy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';
import type { EngineClient } from '../helpers/grpc-client.js';
import { collect, engineClient, generateRequest, parts, unary } from '../helpers/grpc-client.js';

let w: SimWorker;
let c: EngineClient;

void describe('gRPC faults', () => {
  before(async () => {
    w = await startSimWorker({
      protocol: 'grpc',
      runtime: 'sglang',
      ttftMs: 1,
      itlMs: 0,
      answerText: 'the train runs north past the bridge',
    });
    c = engineClient('sglang', w.url);
  });
  after(async () => {
    c.close();
    await w.close();
  });

  void it('a start failure ends the call with the chosen status and message, maxFires times', async () => {
    w.setFaults({ errorRate: 1, grpcStatus: 14, grpcMessage: 'engine down', maxFires: 1 });
    let started = false;
    const r = await collect(c, 'Generate', generateRequest('sglang'), (call) =>
      call.on('metadata', () => (started = true)),
    );
    assert.equal(r.code, grpc.status.UNAVAILABLE);
    assert.equal(r.details, 'engine down');
    assert.equal(r.messages.length, 0);
    assert.equal(started, false, 'Trailers-Only: the call never started');
    assert.equal((await collect(c, 'Generate', generateRequest('sglang'))).code, 0);
  });

  void it('without grpcStatus the code follows errorStatus (400 → INVALID_ARGUMENT)', async () => {
    w.setFaults({ errorRate: 1, errorStatus: 400 });
    const r = await collect(c, 'Generate', generateRequest('sglang'));
    assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
    w.setFaults({ errorRate: 1 });
    assert.equal(
      (await collect(c, 'Generate', generateRequest('sglang'))).code,
      grpc.status.INTERNAL,
    );
    w.setFaults({});
  });

  void it('dropAfterChunks: k tokens stream, then INTERNAL', async () => {
    const before = w.stats();
    w.setFaults({ dropAfterChunks: 2, maxFires: 1 });
    const r = await collect(c, 'Generate', generateRequest('sglang'));
    assert.equal(r.code, grpc.status.INTERNAL);
    const { chunks, completes } = parts(r.messages);
    assert.equal(chunks.length, 2);
    assert.equal(completes.length, 0);
    const s = await waitForStats(w, (st) => st.running === 0);
    assert.equal(s.faultsFired, before.faultsFired + 1);
  });

  void it('dropAfterHead: headers, then the chosen stream status before any message', async () => {
    w.setFaults({ dropAfterHead: true, grpcStreamStatus: 10, maxFires: 1 });
    let started = false;
    const r = await collect(c, 'Generate', generateRequest('sglang'), (call) =>
      call.on('metadata', () => (started = true)),
    );
    assert.equal(r.code, grpc.status.ABORTED);
    assert.equal(r.messages.length, 0);
    assert.equal(started, true);
  });

  void it('grpcMalformed: headers, one message with neither chunk nor complete, then OK', async () => {
    const before = w.stats();
    w.setFaults({ grpcMalformed: true, maxFires: 1 });
    const r = await collect(c, 'Generate', generateRequest('sglang'));
    assert.equal(r.code, grpc.status.OK);
    assert.equal(r.messages.length, 1);
    const { chunks, completes } = parts(r.messages);
    assert.equal(chunks.length + completes.length, 0);
    const s = await waitForStats(w, (st) => st.running === 0);
    assert.equal(s.faultsFired, before.faultsFired + 1);
    // maxFires cleared it: the next call is answered.
    const next = await collect(c, 'Generate', generateRequest('sglang'));
    assert.equal(parts(next.messages).completes.length, 1);
  });

  void it('hang: no item until the client cancels, which counts as aborted', async () => {
    const before = w.stats();
    w.setFaults({ hang: true, maxFires: 1 });
    let call: grpc.ClientReadableStream<Record<string, unknown>> | undefined;
    const done = collect(c, 'Generate', generateRequest('sglang'), (k) => (call = k));
    await waitForStats(w, (s) => s.running === before.running + 1);
    await new Promise((r) => setTimeout(r, 30));
    call?.cancel();
    const r = await done;
    assert.equal(r.code, grpc.status.CANCELLED);
    assert.equal(r.messages.length, 0);
    const s = await waitForStats(w, (st) => st.running === 0 && st.aborted === before.aborted + 1);
    assert.equal(s.faultsFired, before.faultsFired + 1);
  });

  void it('a health fault makes HealthCheck unhealthy', async () => {
    w.setFaults({ healthStatus: 503 });
    const res = await unary(c, 'HealthCheck');
    assert.equal(res['healthy'] ?? false, false);
    w.setFaults({});
    assert.deepEqual(await unary(c, 'HealthCheck'), { healthy: true, message: 'ok' });
  });

  void it('refuses a gRPC status outside 1..16', () => {
    assert.throws(() => w.setFaults({ grpcStatus: 0 }), /grpcStatus/);
    assert.throws(() => w.setFaults({ grpcStreamStatus: 17 }), /grpcStreamStatus/);
  });
});
