// Each injectable fault, set by option, by setFaults() and by POST /sim/faults, and cleared again.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { SimWorker } from '../../src/sim/index.js';
import { startSimWorker, waitForStats } from '../../src/sim/index.js';

let w: SimWorker;

const chatBody = (stream: boolean, max = 8) =>
  JSON.stringify({ messages: [{ role: 'user', content: 'fault?' }], max_tokens: max, stream });

async function chat(stream: boolean, signal?: AbortSignal) {
  const res = await request(`${w.url}/v1/chat/completions`, {
    method: 'POST',
    body: chatBody(stream),
    ...(signal ? { signal } : {}),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

async function postFaults(faults: unknown) {
  const res = await request(`${w.url}/sim/faults`, {
    method: 'POST',
    body: JSON.stringify(faults),
  });
  return { status: res.statusCode, json: await res.body.json() };
}

void describe('faults', () => {
  before(async () => {
    w = await startSimWorker({ ttftMs: 2, itlMs: 2 });
  });
  afterEach(() => w.setFaults({}));
  after(() => w.close());

  void it('healthStatus from options makes /health answer it until cleared', async () => {
    const sick = await startSimWorker({ faults: { healthStatus: 503 } });
    try {
      for (const [path, status] of [
        ['/health', 503],
        ['/health_generate', 503],
        ['/v1/models', 200],
      ] as const) {
        const res = await request(`${sick.url}${path}`);
        await res.body.dump();
        assert.equal(res.statusCode, status, path);
      }
      sick.setFaults({});
      const well = await request(`${sick.url}/health`);
      await well.body.dump();
      assert.equal(well.statusCode, 200);
    } finally {
      await sick.close();
    }
  });

  void it('errorRate 1 answers errorStatus with a JSON error', async () => {
    w.setFaults({ errorRate: 1, errorStatus: 429 });
    const base = w.stats();
    const r = await chat(false);
    assert.equal(r.status, 429);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.match(await r.body.text(), /injected/);
    const stats = w.stats();
    assert.equal(stats.faultsFired, base.faultsFired + 1);
    assert.equal(stats.completed, base.completed);
  });

  void it('hang never sends headers; the client gives up and the request counts as aborted', async () => {
    w.setFaults({ hang: true });
    const base = w.stats();
    await assert.rejects(chat(true, AbortSignal.timeout(100)), { name: /Abort|Timeout/ });
    const stats = await waitForStats(w, (s) => s.aborted === base.aborted + 1 && s.running === 0);
    assert.equal(stats.faultsFired, base.faultsFired + 1);
  });

  void it('dropAfterChunks closes a stream early: the client sees a premature close', async () => {
    w.setFaults({ dropAfterChunks: 2 });
    const base = w.stats();
    const r = await chat(true);
    assert.equal(r.status, 200);
    let received = '';
    await assert.rejects(async () => {
      for await (const chunk of r.body) received += String(chunk);
    });
    assert.equal(received.split('data: ').length - 1, 2, 'exactly two events arrived');
    assert.doesNotMatch(received, /\[DONE\]/);
    const stats = await waitForStats(w, (s) => s.running === 0);
    assert.equal(stats.faultsFired, base.faultsFired + 1);
    assert.equal(stats.aborted, base.aborted, 'a dropped stream is a fault, not a client abort');
  });

  void it('dropAfterChunks closes a non-streaming request before the body', async () => {
    w.setFaults({ dropAfterChunks: 0 });
    await assert.rejects(chat(false));
    await waitForStats(w, (s) => s.running === 0);
  });

  void it('POST /sim/faults replaces the faults at runtime and {} clears them', async () => {
    const set = await postFaults({ errorRate: 1, errorStatus: 502 });
    assert.equal(set.status, 200);
    assert.deepEqual(set.json, { errorRate: 1, errorStatus: 502 });
    assert.equal((await chat(false)).status, 502);
    const current = await request(`${w.url}/sim/faults`);
    assert.deepEqual(await current.body.json(), { errorRate: 1, errorStatus: 502 });
    assert.deepEqual((await postFaults({})).json, {});
    const ok = await chat(false);
    assert.equal(ok.status, 200);
    await ok.body.dump();
  });

  void it('POST /sim/faults rejects unknown or invalid faults and keeps the old ones', async () => {
    w.setFaults({ healthStatus: 500 });
    assert.equal((await postFaults({ errorRat: 1 })).status, 400);
    assert.equal((await postFaults({ errorRate: 5 })).status, 400);
    const health = await request(`${w.url}/health`);
    await health.body.dump();
    assert.equal(health.statusCode, 500);
  });

  void it('setFaults rejects invalid values', () => {
    assert.throws(() => w.setFaults({ errorStatus: 42 }), RangeError);
  });
});
