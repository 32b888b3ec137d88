// History-store benchmark: what storing a Responses answer costs per request, for each backend
// (`--history-backend memory|redis|postgres`), in gRPC mode (the gateway builds the response and
// stores it) and in HTTP mode (the worker's response passes through and is stored), in one run.
// One gateway per fleet and backend, each the built CLI pinned to CPU 0; the load generator, the
// canned simulator fleets, redis-server and Postgres share CPU 1. Workloads (workloads.ts): the
// small Responses request with store false (the reference) and true, and the fifth turn of a
// conversation by previous_response_id (four stored turns read, one written) next to the same
// prompt with the history resent by the client. The gRPC gateways run with the L0 tokenizer cache
// on, so the pipeline's fixed cost is as low as it goes and the store's share shows; the seeded
// chains repeat their prompts, so the chain and its resend hit the same caches.
//
//   node --import tsx bench/history-store/run.ts        (~4.5 min; bench/results/history-store.json)
//   HISTORY_BENCH_REPS=1 HISTORY_BENCH_SECONDS=1 HISTORY_BENCH_FLEETS=http ...   (quick look)
//   HISTORY_BENCH_BACKENDS=memory,redis ...              (a subset)
//   HISTORY_BENCH_GRPC_RATE=150 HISTORY_BENCH_HTTP_RATE=600 ...   (the arrival rates, req/s)
import { PostgresServer } from '../../test/helpers/postgres-server.js';
import { ANSWER_TEXT } from '../grpc/text.js';
import { L0_FLAGS, QWEN3_DIR } from '../grpc/workloads.js';
import { groupCpuSeconds, ownProcessGroup, pinSelf, type Managed } from '../lib/proc.js';
import { writeResult } from '../lib/results.js';
import { ensureBuilt, startGateway, startSimFleet, type SimFleetProcess } from '../lib/services.js';
import type { Workload } from '../overhead/workloads.js';
import { startRedis, type BenchRedis } from '../replicas/redis.js';
import {
  measureStore,
  postgresCpu,
  settle,
  type StorePath,
  type StoreRunRecord,
} from './measure.js';
import { report } from './report.js';
import { seedChains, workloads, type SeededChains } from './workloads.js';

const REPS = Number(process.env['HISTORY_BENCH_REPS'] ?? 3);
const SECONDS = Number(process.env['HISTORY_BENCH_SECONDS'] ?? 1);
// Below what the slowest row sustains on this machine kind with room to spare (a closed loop of
// 32 clients gets ~300 req/s of gRPC continuations on Postgres, ~900 over HTTP, and CPU 1 carries
// the client, the simulator and the store), so every row runs at this load and latency is not
// queueing; not much lower, since a gateway's CPU per request grows as its load falls.
const RATES: Record<string, number> = {
  grpc: Number(process.env['HISTORY_BENCH_GRPC_RATE'] ?? 150),
  http: Number(process.env['HISTORY_BENCH_HTTP_RATE'] ?? 600),
};
const FLEETS = (process.env['HISTORY_BENCH_FLEETS'] ?? 'grpc,http').split(',');
const BACKENDS = (process.env['HISTORY_BENCH_BACKENDS'] ?? 'memory,redis,postgres').split(',');
const WORKERS = 2;
// bench/grpc's timing: first token at once, then one per millisecond.
const TIMING = ['--engine', 'canned', '--ttft-ms', '0', '--itl-ms', '1', '--seed', '1'];
const GRPC_FLEET = [
  ...['--protocol', 'grpc', '--runtime', 'sglang'],
  ...['--tokenizer-dir', QWEN3_DIR, '--answer-text', ANSWER_TEXT],
];

interface Answer {
  id: string;
  status: string;
  usage?: { input_tokens?: number };
}

async function call(url: string, method: string, path: string, body?: string): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Answer;
}

/**
 * Before anything is timed: a store-false answer is not stored and a store-true one is, the
 * seeded chains continue, and the continuation's prompt is the resent one's (same input tokens).
 */
async function sanity(p: StorePath, ws: readonly Workload[], seeded: SeededChains): Promise<void> {
  const byName = (n: string): Workload => ws.find((w) => w.name === n) as Workload;
  const off = await call(p.url, 'POST', '/v1/responses', byName('store-off').request.body);
  const gone = await fetch(`${p.url}/v1/responses/${off.id}`);
  if (gone.status !== 404) throw new Error(`${p.name}: a store-false response read ${gone.status}`);
  const on = await call(p.url, 'POST', '/v1/responses', byName('store-on').request.body);
  await call(p.url, 'GET', `/v1/responses/${on.id}`);
  const chain = await call(p.url, 'POST', '/v1/responses', seeded.chainBodies[0]);
  const resend = await call(p.url, 'POST', '/v1/responses', seeded.resendBodies[0]);
  const tokens = (a: Answer): number => a.usage?.input_tokens ?? NaN;
  if (tokens(chain) !== tokens(resend) || !(tokens(chain) > tokens(off)))
    throw new Error(
      `${p.name}: input tokens: chain ${tokens(chain)}, resend ${tokens(resend)}, one turn ${tokens(off)}`,
    );
  console.log(
    `${p.name}: ok (one turn ${tokens(off)} input tokens, turn 5 ${tokens(chain)} by chain and by resend; ${off.status})`,
  );
}

const rotate = <T>(xs: readonly T[], by: number): T[] =>
  xs.map((_, i) => xs[(i + by) % xs.length] as T);

function backendFlags(
  backend: string,
  redis: BenchRedis | undefined,
  db: number,
  pgUrl: string | undefined,
): string[] {
  if (backend === 'memory') return ['--history-backend', 'memory'];
  if (backend === 'redis' && redis)
    return ['--history-backend', 'redis', '--redis-url', `${redis.url}/${db}`];
  if (backend === 'postgres' && pgUrl)
    return ['--history-backend', 'postgres', '--postgres-db-url', pgUrl];
  throw new Error(`unknown backend ${backend}`);
}

async function main(): Promise<void> {
  const pinned = pinSelf('1');
  const cpuGateway = pinned ? '0' : undefined;
  const cpuSim = pinned ? '1' : undefined;
  const started = performance.now();
  ensureBuilt();
  const procs: Managed[] = [];
  let redis: BenchRedis | undefined;
  let pg: PostgresServer | undefined;
  try {
    // Both inherit this process's pinning to CPU 1.
    if (BACKENDS.includes('redis')) redis = await startRedis();
    if (BACKENDS.includes('postgres')) pg = await PostgresServer.start();
    const fleets = new Map<string, SimFleetProcess>();
    for (const fleet of FLEETS) {
      const flags = fleet === 'grpc' ? [...TIMING, ...GRPC_FLEET] : TIMING;
      const f = await startSimFleet(WORKERS, flags, cpuSim);
      procs.push(f.proc);
      fleets.set(fleet, f);
    }
    const ownGroup = ownProcessGroup();
    const paths: StorePath[] = [];
    let redisDb = 0;
    for (const [fleet, f] of fleets)
      for (const backend of BACKENDS) {
        const pgUrl = backend === 'postgres' && pg ? pg.url(await pg.createDatabase()) : undefined;
        const gw = await startGateway({
          workerUrls: f.urls,
          policy: 'round_robin',
          cpus: cpuGateway,
          extraFlags: [
            ...(fleet === 'grpc' ? L0_FLAGS : []),
            ...backendFlags(backend, redis, redisDb++, pgUrl),
          ],
          // Readiness also waits for the tokenizer (Qwen3's loads in ~1.5 s).
          readyTimeoutMs: 60_000,
        });
        procs.push(gw.proc);
        const redisPid = redis?.proc.pid ?? -1;
        const storeCpu =
          backend === 'redis'
            ? () => new Map([[redisPid, groupCpuSeconds(redisPid)]])
            : backend === 'postgres'
              ? postgresCpu
              : () => new Map<number, number>();
        paths.push({
          name: `${fleet}-${backend}`,
          fleet,
          backend,
          url: gw.url,
          proc: gw.proc,
          sim: f.proc,
          storeCpu,
        });
      }

    // Each gateway's chains, seeded again right before each continuation run.
    const seeded = new Map<string, SeededChains>();
    const loads = new Map<string, Workload[]>();
    for (const p of paths) {
      seeded.set(p.name, await seedChains(p.url));
      loads.set(
        p.name,
        workloads(RATES[p.fleet] ?? 100, () => seeded.get(p.name) as SeededChains),
      );
      await sanity(p, loads.get(p.name) ?? [], seeded.get(p.name) as SeededChains);
    }
    const names = (loads.get(paths[0]?.name ?? '') ?? []).map((w) => w.name);
    const ours = new Set([
      ownGroup,
      ...procs.map((p) => p.pid),
      ...(redis ? [redis.proc.pid] : []),
    ]);
    const one = async (p: StorePath, name: string, seconds: number, warmupMs?: number) => {
      const w = (loads.get(p.name) ?? []).find((x) => x.name === name) as Workload;
      if (name === 'chain') seeded.set(p.name, await seedChains(p.url));
      return measureStore(p, w, ours, seconds, warmupMs);
    };
    // rep -> gateway -> its four workloads, then the same four in reverse (A B C D D C B A): a
    // gateway's runs come back to back, so each ratio to its own store-off run compares runs
    // seconds apart, and a drift within the block cancels over the two halves. Each half counts
    // as one sample (`rep` in the records); the gateway and workload orders rotate each rep.
    const runs: StoreRunRecord[] = [];
    for (let rep = 0; rep < REPS; rep++)
      for (const p of rotate(paths, rep)) {
        await settle(ours);
        // An unrecorded pass first (JIT, pools, caches, the store's connections), since the
        // gateway sat idle while the others ran.
        for (const name of names) await one(p, name, 0.4, 200);
        const order = rotate(names, rep);
        for (const [half, list] of [order, [...order].reverse()].entries())
          for (const name of list) {
            const rec = await one(p, name, SECONDS);
            runs.push({ rep: rep * 2 + half, ...rec });
            const s = rec.summary;
            const us = (rec.proxyCpuSeconds * 1e6) / Math.max(1, s.requests);
            const other = (rec.otherCpuSeconds * 1000) / rec.windowMs;
            console.log(
              `rep ${rep + 1}/${REPS}.${half + 1} ${p.name.padEnd(13)} ${name.padEnd(9)} ${s.reqPerSec.toFixed(0).padStart(5)} req/s  p50 ${s.latency.p50.toFixed(2)} ms  p99 ${s.latency.p99.toFixed(2)} ms  ${us.toFixed(0)} µs/req  errors ${s.errors + s.dropped}  other load ${(other * 100).toFixed(0)}%`,
            );
          }
      }
    const rates = Object.fromEntries(FLEETS.map((f) => [f, RATES[f] ?? 100]));
    const aggregates = report(runs, names, rates);
    const elapsedSeconds = Math.round((performance.now() - started) / 1000);
    const path = writeResult('history-store', {
      reps: REPS,
      seconds: SECONDS,
      rates,
      workers: WORKERS,
      pinned,
      fleets: FLEETS,
      backends: BACKENDS,
      redis: redis?.version,
      elapsedSeconds,
      aggregates,
      runs,
    });
    console.log(`\nwrote ${path} (${elapsedSeconds} s)`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await redis?.stop();
    await pg?.close();
  }
}

await main();
