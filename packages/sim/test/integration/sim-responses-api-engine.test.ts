// A Responses request is a chat generation underneath: it hits the prefix cache as the equivalent
// chat request does, takes the request faults in OpenAI's shape, streams on the engine's clock
// (first delta at TTFT, one per ITL) and counts a client that leaves as aborted, as chat does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ManualClock } from '@switchyard/kit';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';
import { postResponses, wholeResponse } from '../helpers/responses-api.js';

const INSTRUCTIONS = 'You answer questions about railway yards.';
const USER = 'Which track does the freight train take tonight?';
const body = (extra: Record<string, unknown> = {}) => ({
  model: 'm',
  instructions: INSTRUCTIONS,
  input: USER,
  max_output_tokens: 2,
  ...extra,
});

void describe('Responses on the engine', () => {
  let canned: SimWorker;
  let realistic: SimWorker;
  before(async () => {
    canned = await startSimWorker({ ttftMs: 0, itlMs: 0, seed: 7 });
    realistic = await startSimWorker({ engine: 'realistic', timeScale: 0.01, seed: 7 });
  });
  after(async () => {
    for (const w of [canned, realistic]) assert.equal(w.stats().running, 0, `${w.name} leaked`);
    await Promise.all([canned.close(), realistic.close()]);
  });

  void it('hits the prefix cache as the equivalent chat request does', async () => {
    const cold = await wholeResponse(realistic.url, body());
    assert.equal(cold.usage?.input_tokens_details.cached_tokens, 0);
    const base = realistic.stats().cachedTokens;
    const warm = await wholeResponse(realistic.url, body());
    // 20 prompt tokens: one full block of 16 is cached.
    assert.equal(warm.usage?.input_tokens_details.cached_tokens, 16);
    assert.equal(warm.usage?.input_tokens, 20, 'input_tokens counts cached tokens too');
    assert.equal(realistic.stats().cachedTokens, base + 16);
    const res = await fetch(`${realistic.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        max_tokens: 2,
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: USER },
        ],
      }),
    });
    const usage = ((await res.json()) as { usage: Record<string, unknown> }).usage;
    assert.deepEqual(usage['prompt_tokens_details'], { cached_tokens: 16 }, 'same blocks as chat');
  });

  void it('takes the request faults as chat does, errors in OpenAI’s shape', async () => {
    const base = canned.stats();
    canned.setFaults({ errorRate: 1, errorStatus: 503, maxFires: 1 });
    const failed = await postResponses(canned.url, body());
    assert.equal(failed.status, 503);
    assert.deepEqual(JSON.parse(failed.text), {
      error: { message: 'sim: injected error', type: 'sim_fault', code: 503 },
    });
    canned.setFaults({ dropAfterChunks: 4, maxFires: 1 });
    const res = await fetch(`${canned.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body({ stream: true, max_output_tokens: 10 })),
    });
    assert.equal(res.status, 200);
    await assert.rejects(res.text(), 'the stream ends without response.completed');
    canned.setFaults({});
    const s = await waitForStats(canned, (st) => st.running === 0);
    assert.equal(s.faultsFired, base.faultsFired + 2);
    assert.equal(s.completed, base.completed);
  });
});

void describe('Responses on a manual clock', () => {
  let w: SimWorker;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock();
    w = await startSimWorker({ ttftMs: 60, itlMs: 20, clock });
  });
  after(() => w.close());

  /** Opens a stream; its text so far and its end. */
  async function open(extra: Record<string, unknown>, signal?: AbortSignal) {
    const res = await request(`${w.url}/v1/responses`, {
      method: 'POST',
      body: JSON.stringify(body({ stream: true, ...extra })),
      ...(signal === undefined ? {} : { signal }),
    });
    assert.equal(res.statusCode, 200);
    const got = { text: '' };
    res.body.setEncoding('utf8').on('data', (d: string) => (got.text += d));
    const ended = new Promise<void>((resolve) => {
      res.body.on('end', resolve);
      res.body.on('error', () => resolve());
    });
    return { got, ended };
  }

  const deltas = (text: string): number =>
    text.match(/^event: response\.output_text\.delta$/gm)?.length ?? 0;

  const flush = async (): Promise<void> => {
    // A round trip through the worker: anything it had written would have arrived by now.
    await (await fetch(`${w.url}/v1/loads`)).text();
  };

  void it('sends its first delta at TTFT and one per ITL after it', async () => {
    const { got, ended } = await open({ max_output_tokens: 5 });
    await waitForStats(w, (s) => s.running === 1);
    clock.advance(59);
    await flush();
    assert.equal(got.text, '', 'nothing before TTFT');
    clock.advance(1);
    await flush();
    assert.equal(deltas(got.text), 1);
    for (let token = 2; token <= 5; token++) {
      clock.advance(19);
      await flush();
      assert.equal(deltas(got.text), token - 1, 'not before ITL');
      clock.advance(1);
      await flush();
      assert.equal(deltas(got.text), token);
    }
    await ended;
    assert.match(got.text, /event: response\.completed\n/);
  });

  void it('a client that leaves mid-stream is counted aborted once', async () => {
    const base = w.stats();
    const ac = new AbortController();
    const { got, ended } = await open({ max_output_tokens: 1000 }, ac.signal);
    await waitForStats(w, (s) => s.running === base.running + 1);
    clock.advance(100);
    await flush();
    assert.ok(got.text.includes('output_text.delta'));
    ac.abort();
    await ended;
    const s = await waitForStats(w, (st) => st.aborted === base.aborted + 1 && st.running === 0);
    assert.equal(s.completed, base.completed);
    assert.equal(clock.size, 0, 'the generation left no timer armed');
  });
});
