// Each injectable fault, set by option, by setFaults() and by POST /sim/faults, and cleared again.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ManualClock } from '@switchyard/kit';
import type { SimWorker, SimWorkerOptions } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';

let w: SimWorker;

const chatBody = (stream: boolean, max = 8) =>
  JSON.stringify({ messages: [{ role: 'user', content: 'fault?' }], max_tokens: max, stream });

async function chat(stream: boolean, signal?: AbortSignal, worker: SimWorker = w) {
  const res = await request(`${worker.url}/v1/chat/completions`, {
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
    const gaveUp = new AbortController();
    const pending = chat(true, gaveUp.signal);
    // The client gives up once the worker holds the request, whenever that is.
    await waitForStats(w, (s) => s.running === base.running + 1);
    gaveUp.abort();
    await assert.rejects(pending, { name: /Abort/ });
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

  for (const stream of [true, false]) {
    void it(`dropAfterHead sends a 200 head, then closes before any body byte (stream: ${stream})`, async () => {
      w.setFaults({ dropAfterHead: true, maxFires: 1 });
      const base = w.stats();
      const r = await chat(stream);
      assert.equal(r.status, 200);
      assert.match(
        String(r.headers['content-type']),
        stream ? /text\/event-stream/ : /application\/json/,
      );
      let received = '';
      await assert.rejects(async () => {
        for await (const chunk of r.body) received += String(chunk);
      });
      assert.equal(received, '', 'no body byte arrived');
      const stats = await waitForStats(w, (s) => s.running === 0);
      assert.equal(stats.faultsFired, base.faultsFired + 1);
      const next = await chat(stream);
      assert.equal(next.status, 200);
      assert.ok(
        (await next.body.text()).length > 0,
        'maxFires cleared it: the next answer is whole',
      );
    });
  }

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

void describe('timed and bounded faults', () => {
  before(async () => {
    w = await startSimWorker({ ttftMs: 2, itlMs: 2 });
  });
  afterEach(() => w.setFaults({}));
  after(() => w.close());

  const health = async (w: SimWorker): Promise<number> => {
    const res = await request(`${w.url}/health`);
    await res.body.dump();
    return res.statusCode;
  };

  /** A worker on a ManualClock: simulated time moves only when the test advances it. */
  const manualWorker = async (opts: SimWorkerOptions) => {
    const clock = new ManualClock();
    return { clock, worker: await startSimWorker({ ...opts, clock }) };
  };

  void it('slowStartMs: /health answers 503 until the engine has "loaded"', async () => {
    const { clock, worker } = await manualWorker({ faults: { slowStartMs: 3000 } });
    try {
      assert.equal(await health(worker), 503);
      clock.advance(2999);
      assert.equal(await health(worker), 503);
      clock.advance(1);
      assert.equal(await health(worker), 200);
    } finally {
      await worker.close();
    }
  });

  void it('flapPeriodMs: /health alternates between 503 and 200 every period', async () => {
    const { clock, worker } = await manualWorker({});
    try {
      worker.setFaults({ flapPeriodMs: 40 });
      const seen: number[] = [];
      for (const step of [0, 39, 1, 39, 1]) {
        clock.advance(step);
        seen.push(await health(worker));
      }
      // Simulated ms 0, 39, 40, 79, 80 since the fault was set.
      assert.deepEqual(seen, [503, 503, 200, 200, 503]);
    } finally {
      await worker.close();
    }
  });

  void it('slowdown multiplies engine durations, and clearing restores them', async () => {
    const { clock, worker } = await manualWorker({ ttftMs: 2, itlMs: 2 });
    // Simulated ms from the request's arrival in the engine to its last token.
    const duration = async (): Promise<number> => {
      const base = worker.stats();
      const pending = chat(false, undefined, worker);
      await waitForStats(worker, (s) => s.running === base.running + 1);
      let elapsed = 0;
      while (worker.stats().running > base.running) {
        clock.advance(1);
        elapsed += 1;
      }
      const r = await pending;
      assert.equal(r.status, 200);
      await r.body.dump();
      return elapsed;
    };
    try {
      worker.setFaults({ slowdown: 10 });
      // ttft 2 + 7 × itl 2 = 16 ms at normal speed; 10 × that slowed.
      assert.equal(await duration(), 160);
      worker.setFaults({});
      assert.equal(await duration(), 16);
    } finally {
      await worker.close();
    }
  });

  void it('maxFires: errors fire that many times, then the worker recovers by itself', async () => {
    await postFaults({ errorRate: 1, errorStatus: 503, maxFires: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const r = await chat(false);
      await r.body.dump();
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [503, 503, 200]);
    assert.deepEqual((await postFaults({})).json, {});
  });

  void it('durationMs: every fault clears itself after that long', async () => {
    const { clock, worker } = await manualWorker({
      faults: { hang: true, healthStatus: 500, durationMs: 2000 },
    });
    try {
      assert.equal(await health(worker), 500);
      clock.advance(1999);
      assert.equal(await health(worker), 500);
      clock.advance(1);
      assert.equal(await health(worker), 200);
      const base = worker.stats();
      const pending = request(`${worker.url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'x', max_tokens: 1 }),
      });
      await waitForStats(worker, (s) => s.running === 1);
      clock.advance(20); // the default time to first token, which is also the last
      const res = await pending;
      await res.body.dump();
      assert.equal(res.statusCode, 200, 'the hang is gone too');
      assert.equal(worker.stats().faultsFired, base.faultsFired);
    } finally {
      await worker.close();
    }
  });
});
