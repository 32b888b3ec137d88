// The v1 timing model seen over HTTP. Only lower bounds: machines are shared and slow runs are
// fine, but a simulator that answers faster than ttft + (n-1) × itl is broken.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';

let w: SimWorker;

async function timed(body: unknown, path = '/v1/completions') {
  const start = performance.now();
  const res = await request(`${w.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  const headersAt = performance.now() - start;
  let firstDataAt = -1;
  for await (const _chunk of res.body) {
    if (firstDataAt < 0) firstDataAt = performance.now() - start;
  }
  return { status: res.statusCode, headersAt, firstDataAt, totalAt: performance.now() - start };
}

void describe('timing', () => {
  before(async () => {
    w = await startSimWorker({ ttftMs: 60, itlMs: 20 });
  });
  after(() => w.close());

  void it('a stream of 10 tokens takes at least ttft + 9 × itl, and its first token at least ttft', async () => {
    const r = await timed({ prompt: 'x', max_tokens: 10, stream: true });
    assert.equal(r.status, 200);
    assert.ok(r.firstDataAt >= 55, `first data after ${r.firstDataAt} ms`);
    assert.ok(r.totalAt >= 60 + 9 * 20 - 10, `stream took ${r.totalAt} ms`);
  });

  void it('a non-streaming answer waits for the whole generation', async () => {
    const r = await timed({ text: 'x', sampling_params: { max_new_tokens: 5 } }, '/generate');
    assert.equal(r.status, 200);
    assert.ok(r.headersAt >= 60 + 4 * 20 - 10, `answered after ${r.headersAt} ms`);
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
