// A client that goes away stops the generation: `aborted` counts it exactly once and `running`
// returns to zero. The gateway's tests rely on this counter to prove upstream aborts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';

let w: SimWorker;

const longChat = (stream: boolean) =>
  JSON.stringify({ messages: [{ role: 'user', content: 'go on' }], max_tokens: 1000, stream });

void describe('client abort', () => {
  before(async () => {
    w = await startSimWorker({ ttftMs: 5, itlMs: 5 });
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
    let chunks = 0;
    await assert.rejects(async () => {
      for await (const _chunk of res.body) {
        if (++chunks === 3) ac.abort();
      }
    });
    const stats = await waitForStats(w, (s) => s.aborted === base.aborted + 1 && s.running === 0);
    assert.equal(stats.completed, base.completed);
    const loads = (await (await fetch(`${w.url}/v1/loads`)).json()) as {
      loads: { num_running_reqs: number; num_used_tokens: number }[];
    };
    assert.equal(loads.loads[0]?.num_running_reqs, 0, 'the engine released the generation');
    assert.equal(loads.loads[0]?.num_used_tokens, 0);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(w.stats().aborted, base.aborted + 1, 'counted exactly once');
  });

  void it('before the first byte of a non-streaming answer: counts one abort', async () => {
    const base = w.stats();
    await assert.rejects(
      request(`${w.url}/v1/chat/completions`, {
        method: 'POST',
        body: longChat(false),
        signal: AbortSignal.timeout(50),
      }),
    );
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
