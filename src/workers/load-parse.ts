/**
 * Turning engine load reports into WorkerLoadSnapshots: SMG's `/v1/loads` JSON, or, when an
 * engine has no such endpoint, the gauges of its Prometheus `/metrics` (SGLang `sglang:` /
 * `sglang_` prefixes, vLLM `vllm:`), as SMG's monitor falls back to.
 */
import type { RankLoad } from './load-snapshot.js';

type Json = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Ranks from a `/v1/loads` body, or undefined when the body is not a load report. */
export function parseLoadsJson(value: unknown): RankLoad[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const loads = (value as Json).loads;
  if (!Array.isArray(loads)) return undefined;
  return loads
    .filter((l): l is Json => l !== null && typeof l === 'object')
    .map((l) => ({
      dpRank: num(l.dp_rank),
      runningReqs: num(l.num_running_reqs),
      waitingReqs: num(l.num_waiting_reqs),
      waitingUncachedTokens: num(l.num_waiting_uncached_tokens),
      usedTokens: num(l.num_used_tokens),
      maxTotalTokens: num(l.max_total_num_tokens),
      tokenUsage: num(l.token_usage),
      genThroughput: num(l.gen_throughput),
      cacheHitRate: num(l.cache_hit_rate),
      maxRunningRequests: num(l.max_running_requests),
    }));
}

/** Gauges that are ratios: averaged over label sets (DP ranks), not summed. */
const RATIOS = new Set([
  'sglang:token_usage',
  'sglang_token_usage',
  'vllm:kv_cache_usage_perc',
  'vllm:gpu_cache_usage_perc',
  'sglang:cache_hit_rate',
  'sglang_cache_hit_rate',
  'vllm:gpu_prefix_cache_hit_rate',
]);

/** Each gauge over its label sets (DP ranks, models): counts summed, ratios averaged. */
function gauges(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const name = line.slice(0, brace === -1 ? line.indexOf(' ') : brace);
    const value = Number(line.slice(space + 1));
    if (!Number.isFinite(value)) continue;
    out.set(name, (out.get(name) ?? 0) + value);
    seen.set(name, (seen.get(name) ?? 0) + 1);
  }
  for (const name of RATIOS) {
    const n = seen.get(name);
    if (n !== undefined && n > 1) out.set(name, (out.get(name) ?? 0) / n);
  }
  return out;
}

/** One aggregate rank from engine `/metrics`, or undefined when no known gauge is present. */
export function parseLoadsMetrics(text: string): RankLoad[] | undefined {
  const g = gauges(text);
  const pick = (...names: string[]): number | undefined => {
    for (const n of names) {
      const v = g.get(n);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const running = pick(
    'sglang:num_running_reqs',
    'sglang_num_running_reqs',
    'vllm:num_requests_running',
  );
  const waiting = pick(
    'sglang:num_queue_reqs',
    'sglang_num_queue_reqs',
    'vllm:num_requests_waiting',
  );
  if (running === undefined && waiting === undefined) return undefined;
  return [
    {
      dpRank: 0,
      runningReqs: running ?? 0,
      waitingReqs: waiting ?? 0,
      waitingUncachedTokens: 0,
      usedTokens: 0,
      maxTotalTokens: 0,
      tokenUsage:
        pick(
          'sglang:token_usage',
          'sglang_token_usage',
          'vllm:kv_cache_usage_perc',
          'vllm:gpu_cache_usage_perc',
        ) ?? 0,
      genThroughput: pick('sglang:gen_throughput', 'sglang_gen_throughput') ?? 0,
      cacheHitRate:
        pick('sglang:cache_hit_rate', 'sglang_cache_hit_rate', 'vllm:gpu_prefix_cache_hit_rate') ??
        0,
      maxRunningRequests: 0,
    },
  ];
}
