// A client that goes away stops the generation: `aborted` counts it exactly once and `running`
// returns to zero. The gateway's tests rely on this counter to prove upstream aborts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ManualClock } from '@switchyard/kit';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';

let w: SimWorker;
// The worker's time moves only when a test advances it, so a generation cannot finish (or tick
// again after its client left) behind a test's back.
let clock: ManualClock;

const longChat = (stream: boolean) =>
  JSON.stringify({ messages: [{ role: 'user', content: 'go on' }], max_tokens: 1000, stream });

void describe('client abort', () => {
  before(async () => {
    clock = new ManualClock();
    w = await startSimWorker({ ttftMs: 5, itlMs: 5, clock });
  });
  after(() => w.close());

  void it('mid-stream: counts one abort, frees the slot and stops generating', async () => {
    const base = w.stats();
    const ac = new AbortController();
    const res = await request(`${w.url}/v1/chat/completions`, {
      method: 'POST',
      body: longChat(true),
      signal: ac.signal,
    });
    assert.equal(res.statusCode, 200);
    await waitForStats(w, (s) => s.running === base.running + 1);
    // One token per 5 simulated ms; read at least one chunk per token, leave after the third.
    const reader = res.body[Symbol.asyncIterator]();
    for (let token = 0; token < 3; token++) {
      clock.advance(5);
      assert.equal((await reader.next()).done, false);
    }
    ac.abort();
    await assert.rejects(async () => {
      for (let r = await reader.next(); !r.done; r = await reader.next());
    });
    const stats = await waitForStats(w, (s) => s.aborted === base.aborted + 1 && s.running === 0);
    assert.equal(stats.completed, base.completed);
    assert.equal(clock.size, 0, 'the generation left no timer armed');
    // Whatever could count it again (a late tick, a second close) has had its chance.
    clock.advance(10_000);
    const loads = (await (await fetch(`${w.url}/v1/loads`)).json()) as {
      loads: { num_running_reqs: number; num_used_tokens: number }[];
    };
    assert.equal(loads.loads[0]?.num_running_reqs, 0, 'the engine released the generation');
    assert.equal(loads.loads[0]?.num_used_tokens, 0);
    assert.equal(w.stats().aborted, base.aborted + 1, 'counted exactly once');
    assert.equal(w.stats().completed, base.completed);
  });

  void it('before the first byte of a non-streaming answer: counts one abort', async () => {
    const base = w.stats();
    const ac = new AbortController();
    const pending = request(`${w.url}/v1/chat/completions`, {
      method: 'POST',
      body: longChat(false),
      signal: ac.signal,
    });
    // The clock stands still, so the answer cannot have started: leave once the worker runs it.
    await waitForStats(w, (s) => s.running === base.running + 1);
    ac.abort();
    await assert.rejects(pending, { name: /Abort/ });
    await waitForStats(w, (s) => s.aborted === base.aborted + 1 && s.running === 0);
  });

  void it('counts in-flight requests as aborted when the worker closes', async () => {
    const solo = await startSimWorker({ ttftMs: 5, itlMs: 5 });
    const res = await request(`${solo.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'x', max_tokens: 1000, stream: true }),
    });
    const consumed = res.body.text().catch(() => 'closed');
    await waitForStats(solo, (s) => s.running === 1);
    await solo.close();
    assert.equal(await consumed, 'closed');
    const stats = solo.stats();
    assert.equal(stats.aborted, 1);
    assert.equal(stats.running, 0);
  });
});
