// The realistic engine seen over HTTP: inter-token latency grows with the batch, the running
// window queues the rest (and /v1/loads, /metrics, /sim/stats say so), and a repeated prefix is
// cheaper and reports cached tokens. Timing assertions are orderings or lower bounds only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SimWorker, SimWorkerOptions } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseData, simPost, waitForStats } from '../../src/testing.js';

async function withWorker(opts: SimWorkerOptions, fn: (w: SimWorker) => Promise<void>) {
  const w = await startSimWorker({ engine: 'realistic', ...opts });
  try {
    await fn(w);
  } finally {
    await w.close();
  }
}

/** Mean gap between SSE events after the first token, in wall ms. */
async function meanItl(w: SimWorker, prompt: string, tokens: number): Promise<number> {
  const res = await fetch(`${w.url}/v1/completions`, {
    method: 'POST',
    body: JSON.stringify({ prompt, max_tokens: tokens, stream: true }),
  });
  const times: number[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body ?? []) {
    const n = decoder.decode(chunk as Uint8Array).split('"text":').length - 1;
    for (let i = 0; i < n; i++) times.push(performance.now());
  }
  return ((times.at(-1) ?? 0) - (times[0] ?? 0)) / Math.max(1, times.length - 1);
}

interface Loads {
  loads: { num_running_reqs: number; num_waiting_reqs: number; max_running_requests: number }[];
}

void describe('realistic engine over HTTP', () => {
  void it('inter-token latency grows with the batch size', async () => {
    // 2 ms + 4 ms per sequence: 6 ms alone, 122 ms in a batch of 30 (simulated; scale 0.1).
    await withWorker({ decodeBaseMs: 2, decodePerReqMs: 4, timeScale: 0.1 }, async (w) => {
      const alone = await meanItl(w, 'alone', 30);
      const batch = await Promise.all(
        Array.from({ length: 30 }, (_, i) => meanItl(w, `b${i}`, 30)),
      );
      const median = [...batch].sort((a, b) => a - b)[15] ?? 0;
      // Most of each stream runs with the whole burst admitted: at least 20 sequences per step.
      assert.ok(median >= (2 + 4 * 20) * 0.1, `median batched ITL ${median} ms`);
      assert.ok(median > alone, `batched ${median} ms vs alone ${alone} ms`);
    });
  });

  void it('the window caps running requests and queues the rest, and the reports say so', async () => {
    await withWorker({ maxRunningRequests: 3, timeScale: 0.1 }, async (w) => {
      const ac = new AbortController();
      const body = { prompt: 'hold', max_tokens: 100_000 };
      const pending = Array.from({ length: 5 }, () =>
        simPost(`${w.url}/v1/completions`, body, ac.signal).catch(() => undefined),
      );
      const stats = await waitForStats(w, (s) => s.running === 5 && s.waiting === 2);
      assert.equal(stats.completed, 0);
      const loads = (await (await fetch(`${w.url}/v1/loads`)).json()) as Loads;
      assert.deepEqual(
        [loads.loads[0]?.num_running_reqs, loads.loads[0]?.num_waiting_reqs],
        [3, 2],
      );
      assert.equal(loads.loads[0]?.max_running_requests, 3);
      const metrics = await (await fetch(`${w.url}/metrics`)).text();
      assert.match(metrics, /^sglang:num_running_reqs\{model_name="sim-model"\} 3$/m);
      assert.match(metrics, /^sglang:num_queue_reqs\{model_name="sim-model"\} 2$/m);
      ac.abort();
      await Promise.all(pending);
      await waitForStats(w, (s) => s.running === 0 && s.waiting === 0);
    });
  });

  void it('vLLM reports the same numbers under its own gauge names', async () => {
    await withWorker({ runtime: 'vllm', maxRunningRequests: 1, timeScale: 0.1 }, async (w) => {
      const ac = new AbortController();
      const body = { prompt: 'hold', max_tokens: 100_000 };
      const pending = [1, 2].map(() =>
        simPost(`${w.url}/v1/completions`, body, ac.signal).catch(() => undefined),
      );
      await waitForStats(w, (s) => s.waiting === 1);
      const metrics = await (await fetch(`${w.url}/metrics`)).text();
      assert.match(metrics, /^vllm:num_requests_running\{model_name="sim-model"\} 1$/m);
      assert.match(metrics, /^vllm:num_requests_waiting\{model_name="sim-model"\} 1$/m);
      const usage = /^vllm:kv_cache_usage_perc\{[^}]*\} (\S+)$/m.exec(metrics)?.[1];
      assert.ok(Number(usage) > 0, 'the running request holds KV');
      ac.abort();
      await Promise.all(pending);
    });
  });

  void it('a repeated prefix is cheaper and reports cached tokens', async () => {
    // 1000 tokens/s: the 803-token prompt costs 0.8 s cold, three tokens warm (time scale 0.1).
    await withWorker({ prefillTps: 1000, timeScale: 0.1 }, async (w) => {
      const prompt = Array.from({ length: 800 }, (_, i) => `w${i}`).join(' ') + '.';
      const ask = () =>
        simPost(`${w.url}/v1/chat/completions`, {
          messages: [{ role: 'user', content: prompt }],
          max_tokens: 1,
        });
      const cold = await ask();
      const warm = await ask();
      type Usage = {
        usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
      };
      const c = JSON.parse(cold.text) as Usage;
      const h = JSON.parse(warm.text) as Usage;
      assert.equal(c.usage.prompt_tokens_details.cached_tokens, 0);
      // "user", ":", 800 words and "." = 803 tokens; the 50 full blocks of 16 are cached.
      assert.equal(h.usage.prompt_tokens, 803);
      assert.equal(h.usage.prompt_tokens_details.cached_tokens, 800);
      assert.ok(cold.elapsedMs >= 800 * 0.1, `cold prefill took ${cold.elapsedMs} ms`);
      assert.ok(
        warm.elapsedMs < cold.elapsedMs,
        `warm ${warm.elapsedMs} vs cold ${cold.elapsedMs}`,
      );
      assert.equal(w.stats().cachedTokens, 800);

      const gen = await simPost(`${w.url}/generate`, { text: `user: ${prompt}\n` });
      const meta = (JSON.parse(gen.text) as { meta_info: { cached_tokens: number } }).meta_info;
      assert.equal(meta.cached_tokens, 800, 'SGLang meta_info.cached_tokens, same prompt tokens');

      const flushed = await fetch(`${w.url}/flush_cache`, { method: 'POST' });
      await flushed.text();
      const after = JSON.parse((await ask()).text) as Usage;
      assert.equal(after.usage.prompt_tokens_details.cached_tokens, 0, 'flush_cache emptied it');
    });
  });

  void it('streams n > 1 choices with their own text and reports cached tokens per SSE usage', async () => {
    await withWorker({ timeScale: 0.1 }, async (w) => {
      const r = await simPost(`${w.url}/v1/completions`, {
        prompt: 'two ways',
        n: 2,
        max_tokens: 3,
        stream: true,
        stream_options: { include_usage: true },
      });
      const events = parseSseData(r.text);
      assert.equal(events.at(-1), '[DONE]');
      const usage = JSON.parse(events.at(-2) ?? '{}') as {
        usage: { completion_tokens: number; prompt_tokens_details: { cached_tokens: number } };
      };
      assert.equal(usage.usage.completion_tokens, 6);
      assert.equal(usage.usage.prompt_tokens_details.cached_tokens, 0);
    });
  });
});
