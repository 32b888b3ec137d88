// The v1 timing model seen over HTTP, on a ManualClock so the times are exact; and, once, on the
// wall clock, that --time-scale shrinks durations (a lower bound: a busy machine is only slower).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ManualClock } from '@switchyard/kit';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';

let w: SimWorker;
let clock: ManualClock;

/** Simulated ms from the request's arrival in the engine until the worker has answered it. */
async function answerTime(pending: Promise<unknown>): Promise<number> {
  await waitForStats(w, (s) => s.running === 1);
  let elapsed = 0;
  while (w.stats().running > 0) {
    clock.advance(1);
    elapsed += 1;
  }
  await pending;
  return elapsed;
}

void describe('timing', () => {
  before(async () => {
    clock = new ManualClock();
    w = await startSimWorker({ ttftMs: 60, itlMs: 20, clock });
  });
  after(() => w.close());

  void it('a stream sends its first token at ttft and ends at ttft + (n-1) × itl', async () => {
    const res = await request(`${w.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'x', max_tokens: 10, stream: true }),
    });
    assert.equal(res.statusCode, 200);
    let data = '';
    res.body.setEncoding('utf8').on('data', (d: string) => (data += d));
    const ended = new Promise((resolve) => res.body.on('end', resolve));
    clock.advance(59);
    // A round trip through the worker: anything it had written would have arrived by now.
    await (await fetch(`${w.url}/v1/loads`)).text();
    assert.equal(data, '', 'nothing before ttft');
    const total = 59 + (await answerTime(ended));
    assert.equal(total, 60 + 9 * 20);
    assert.match(data, /data: \[DONE\]\n\n$/);
  });

  void it('a non-streaming answer waits for the whole generation', async () => {
    const pending = request(`${w.url}/generate`, {
      method: 'POST',
      body: JSON.stringify({ text: 'x', sampling_params: { max_new_tokens: 5 } }),
    });
    assert.equal(await answerTime(pending), 60 + 4 * 20);
    const res = await pending;
    assert.equal(res.statusCode, 200);
    await res.body.dump();
  });

  void it('--time-scale shrinks every duration, and only by that factor', async () => {
    const fast = await startSimWorker({ ttftMs: 1000, itlMs: 500, timeScale: 0.05 });
    try {
      const start = performance.now();
      const res = await request(`${fast.url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'x', max_tokens: 3 }),
      });
      await res.body.dump();
      const took = performance.now() - start;
      // (1000 + 2 × 500) simulated ms at 0.05: 100 ms of wall time, not 2 s and not 0.
      assert.ok(took >= 95, `answered after ${took} ms`);
    } finally {
      await fast.close();
    }
  });
});
