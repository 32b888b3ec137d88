import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLoadsJson, parseLoadsMetrics } from '../../../src/workers/load-parse.js';

test('parses SMG /v1/loads ranks', () => {
  const ranks = parseLoadsJson({
    loads: [
      {
        dp_rank: 1,
        num_running_reqs: 4,
        num_waiting_reqs: 2,
        num_waiting_uncached_tokens: 300,
        token_usage: 0.5,
        gen_throughput: 900,
      },
    ],
  });
  assert.equal(ranks?.length, 1);
  assert.deepEqual(
    [
      ranks?.[0]?.dpRank,
      ranks?.[0]?.runningReqs,
      ranks?.[0]?.waitingReqs,
      ranks?.[0]?.waitingUncachedTokens,
      ranks?.[0]?.tokenUsage,
    ],
    [1, 4, 2, 300, 0.5],
  );
  assert.equal(parseLoadsJson({ status: 'ok' }), undefined);
  assert.equal(parseLoadsJson('x'), undefined);
});

test('falls back to SGLang and vLLM gauges, summed over label sets', () => {
  const sglang = parseLoadsMetrics(
    '# HELP x\nsglang:num_running_reqs{dp="0"} 3\nsglang:num_running_reqs{dp="1"} 2\nsglang:num_queue_reqs 4\nsglang:token_usage 0.25\n',
  );
  assert.deepEqual(
    [sglang?.[0]?.runningReqs, sglang?.[0]?.waitingReqs, sglang?.[0]?.tokenUsage],
    [5, 4, 0.25],
  );
  const vllm = parseLoadsMetrics(
    'vllm:num_requests_running{model_name="m"} 7\nvllm:num_requests_waiting{model_name="m"} 1\nvllm:kv_cache_usage_perc{model_name="m"} 0.8\n',
  );
  assert.deepEqual(
    [vllm?.[0]?.runningReqs, vllm?.[0]?.waitingReqs, vllm?.[0]?.tokenUsage],
    [7, 1, 0.8],
  );
  assert.equal(parseLoadsMetrics('process_cpu_seconds_total 1\n'), undefined);
});

test('ratio gauges are averaged over DP ranks, not summed', () => {
  const r = parseLoadsMetrics(
    'sglang:num_running_reqs{dp="0"} 1\nsglang:num_running_reqs{dp="1"} 1\nsglang:token_usage{dp="0"} 0.8\nsglang:token_usage{dp="1"} 0.6\n',
  );
  assert.equal(r?.[0]?.runningReqs, 2);
  assert.ok(Math.abs((r?.[0]?.tokenUsage ?? 0) - 0.7) < 1e-9);
});
