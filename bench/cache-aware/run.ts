// Routing gains: the same shared-prefix workload through Switchyard with round_robin, cache_aware
// and prefix_hash, on a fleet of realistic simulated engines (continuous batching, prefill cost
// per uncached token, a prefix cache with LRU eviction in a bounded KV pool). Each policy gets a
// fresh fleet (cold caches) and a fresh gateway, and the identical seeded request sequence with
// identical Poisson arrival times.
//
// The KV pool is sized so that one worker holds about half of all system prompts: a policy that
// sends every prompt everywhere (round_robin) keeps evicting, one that partitions prompts across
// workers keeps them resident. That is the regime where prefix-aware routing matters; with a pool
// that holds every prompt on every worker, all policies converge to the same hit rate.
//
// Times are reported in model milliseconds (wall time ÷ time scale), i.e. what the simulated
// engine's timing model represents; the gateway's own sub-millisecond cost is scaled up alike.
//
//   node --import tsx bench/cache-aware/run.ts     (~1.5 min; writes bench/results/cache-aware.json)
//   CACHE_BENCH_RATES=30 CACHE_BENCH_REQUESTS=800 ...   (other load points)
import { runLoad, summarize, type Sample } from '../lib/loadgen.js';
import { cpuSnapshot, foreignCpuSeconds, ownProcessGroup, waitForQuiet } from '../lib/proc.js';
import { writeResult } from '../lib/results.js';
import { ensureBuilt, startGateway, startSimFleet } from '../lib/services.js';
import { distribution, round } from '../lib/stats.js';
import { fmt, printTable, ratio } from '../lib/table.js';
import { sharedPrefixWorkload, usageOf, type WorkloadShape } from './workload.js';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const POLICIES = ['round_robin', 'cache_aware', 'prefix_hash'];
const WORKERS = 4;
const REQUESTS = env('CACHE_BENCH_REQUESTS', 1500);
// Requests per model second: below and near round_robin's saturation (~35 req/s on this shape).
const RATES = (process.env['CACHE_BENCH_RATES'] ?? '20,40').split(',').map(Number);
const SCALE = env('CACHE_BENCH_TIME_SCALE', 0.2);
const KV_TOKENS = env('CACHE_BENCH_KV_TOKENS', 16_384);
const WARMUP_FRACTION = 0.2;
const SHAPE: WorkloadShape = {
  systemPrompts: 24,
  systemWords: 1200,
  userWords: 40,
  maxTokens: 16,
  seed: 42,
};

interface SimStats {
  completed: number;
  cachedTokens: number;
}

async function simStats(url: string): Promise<SimStats> {
  const res = await fetch(`${url}/sim/stats`);
  return (await res.json()) as SimStats;
}

async function runPolicy(
  policy: string,
  rate: number,
  workload: ReturnType<typeof sharedPrefixWorkload>,
) {
  const fleet = await startSimFleet(WORKERS, [
    '--engine',
    'realistic',
    '--time-scale',
    String(SCALE),
    '--kv-tokens',
    String(KV_TOKENS),
    '--seed',
    '1',
  ]);
  try {
    const gw = await startGateway({ workerUrls: fleet.urls, policy });
    const ours = new Set([ownProcessGroup(), fleet.proc.pid, gw.proc.pid]);
    try {
      await waitForQuiet(ours, 0.2, 3000);
      const before = cpuSnapshot();
      const r = await runLoad({
        origins: [gw.url],
        request: (i) => workload.request(i),
        open: { ratePerSec: rate / SCALE, seed: 9, maxInFlight: 4096 },
        count: REQUESTS,
        keepBody: true,
      });
      // Other users' CPU while this policy ran: a policy measured on a busier machine looks worse.
      const otherCores = foreignCpuSeconds(before, cpuSnapshot(), ours) / (r.windowMs / 1000);
      const stats = await Promise.all(fleet.urls.map(simStats));
      return { r, stats, otherCores };
    } finally {
      await gw.proc.stop();
    }
  } finally {
    await fleet.proc.stop();
  }
}

function analyse(
  policy: string,
  rate: number,
  r: Awaited<ReturnType<typeof runPolicy>>['r'],
  stats: SimStats[],
  otherCores: number,
) {
  const all = r.samples;
  const warm = Math.floor(REQUESTS * WARMUP_FRACTION);
  const measured = all.filter((s) => s.index >= warm);
  const ok = (s: Sample): boolean => s.status === 200 && Number.isFinite(s.firstEvent);
  const toModel = (ms: number): number => ms / SCALE;
  let prompt = 0;
  let cached = 0;
  let promptAll = 0;
  for (const s of all) {
    const u = usageOf(s.body);
    if (!u) continue;
    promptAll += u.prompt;
    if (s.index >= warm) {
      prompt += u.prompt;
      cached += u.cached;
    }
    delete s.body; // keep the JSON results small
  }
  const ttft = distribution(measured.filter(ok).map((s) => toModel(s.firstEvent)));
  const e2e = distribution(measured.filter(ok).map((s) => toModel(s.total)));
  const first = Math.min(...all.map((s) => s.start));
  const last = Math.max(...all.map((s) => s.start + s.total));
  const completed = stats.map((s) => s.completed);
  const summary = summarize(r, measured);
  return {
    policy,
    rate,
    requests: all.length,
    errors: all.length - all.filter(ok).length,
    ttftP50: ttft.p50,
    ttftP99: ttft.p99,
    ttftMean: ttft.mean,
    e2eP50: e2e.p50,
    e2eP99: e2e.p99,
    hitRate: prompt > 0 ? cached / prompt : NaN,
    simHitRate: promptAll > 0 ? stats.reduce((n, s) => n + s.cachedTokens, 0) / promptAll : NaN,
    computedTokensPerRequest: measured.length > 0 ? (prompt - cached) / measured.length : NaN,
    // Whole run, first arrival to last completion, in model seconds.
    reqPerSec: (all.length / toModel(last - first)) * 1000,
    outputTokPerSec: ((all.length * SHAPE.maxTokens) / toModel(last - first)) * 1000,
    maxWorkerShare:
      Math.max(...completed) /
      Math.max(
        1,
        completed.reduce((a, b) => a + b, 0),
      ),
    perWorker: completed,
    clientCpuShare: summary.clientCpuShare,
    otherCores,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  ensureBuilt();
  const workload = sharedPrefixWorkload(SHAPE, REQUESTS);
  console.log(
    `${REQUESTS} streamed chats per policy: ${SHAPE.systemPrompts} system prompts × ${SHAPE.systemWords} tokens, ` +
      `${SHAPE.userWords}-token user turns, ${SHAPE.maxTokens} output tokens; ${WORKERS} realistic workers with ${KV_TOKENS} KV tokens each; ` +
      `time scale ${SCALE}. Latency in model ms; the first ${WARMUP_FRACTION * 100}% of requests are left out of latency and hit rate.`,
  );
  const rows: ReturnType<typeof analyse>[] = [];
  for (const rate of RATES) {
    for (const policy of POLICIES) {
      const { r, stats, otherCores } = await runPolicy(policy, rate, workload);
      const a = analyse(policy, rate, r, stats, otherCores);
      console.log(
        `${String(rate).padStart(3)} req/s ${policy.padEnd(12)} TTFT p50 ${fmt(a.ttftP50, 0)} ms p99 ${fmt(a.ttftP99, 0)} ms, hit ${fmt(a.hitRate * 100, 1)}%, errors ${a.errors}`,
      );
      rows.push(a);
    }
  }
  for (const rate of RATES) {
    const at = rows.filter((a) => a.rate === rate);
    const base = at.find((a) => a.policy === 'round_robin');
    printTable(
      `Shared-prefix routing, Poisson arrivals at ${rate} req/s (model time)`,
      [
        'policy',
        'TTFT p50',
        'TTFT p99',
        'TTFT mean',
        'E2E p50',
        'E2E p99',
        'cache hit',
        'hit (sim stats, all)',
        'prefill tok/req',
        'req/s',
        'output tok/s',
        'busiest worker',
        'TTFT p50 vs RR',
        'TTFT p99 vs RR',
        'other load',
        'errors',
      ],
      at.map((a) => [
        a.policy,
        fmt(a.ttftP50, 0),
        fmt(a.ttftP99, 0),
        fmt(a.ttftMean, 0),
        fmt(a.e2eP50, 0),
        fmt(a.e2eP99, 0),
        `${fmt(a.hitRate * 100, 1)}%`,
        `${fmt(a.simHitRate * 100, 1)}%`,
        fmt(a.computedTokensPerRequest, 0),
        fmt(a.reqPerSec, 1),
        fmt(a.outputTokPerSec, 0),
        `${fmt(a.maxWorkerShare * 100, 0)}%`,
        ratio(a.ttftP50, base?.ttftP50 ?? NaN),
        ratio(a.ttftP99, base?.ttftP99 ?? NaN),
        `${fmt(a.otherCores * 100, 0)}%`,
        a.errors,
      ]),
    );
  }
  const path = writeResult('cache-aware', {
    requests: REQUESTS,
    ratesPerModelSecond: RATES,
    timeScale: SCALE,
    kvTokens: KV_TOKENS,
    workers: WORKERS,
    shape: SHAPE,
    warmupFraction: WARMUP_FRACTION,
    elapsedSeconds: Math.round((performance.now() - started) / 1000),
    runs: rows.map((a) =>
      Object.fromEntries(
        Object.entries(a).map(([k, v]) => [k, typeof v === 'number' ? round(v, 4) : v]),
      ),
    ),
  });
  console.log(`\nwrote ${path} (${Math.round((performance.now() - started) / 1000)} s)`);
}

await main();
