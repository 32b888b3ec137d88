// Replicas and admission stores, side by side in one run:
//
// 1. burst   - one simulated PD pair whose decode window is 16, a 64-request burst spread round
//              robin over the gateway processes: 3 replicas with the in-process store (the
//              over-admission control), `launch --workers 3` (cluster store) and 3 replicas on
//              one redis-server (`--admission-store`). burst.ts.
// 2. claims  - what one claim (take + give-back) costs on each store object, without HTTP, at
//              1 and 32 takes in flight: claims/s, take latency, CPU per claim in the gateway
//              process and on the shared side (the primary; redis-server). claims.ts.
// 3. workers - `launch --workers N` for N = 1 and 2 on the overhead benchmark's small and stream
//              workloads: req/s, latency, CPU per request of the whole launch. workers.ts.
//
//   node --import tsx bench/replicas/run.ts                    (~2.5 min; bench/results/replicas.json)
//   node --import tsx bench/replicas/run.ts --only claims      (any of burst,claims,workers)
//
// Knobs: REPLICAS_BURST (64), REPLICAS_WINDOW (16), REPLICAS_COUNT (3 gateway processes),
// REPLICAS_CLAIM_CONCURRENCY (1,32), REPLICAS_CLAIM_SECONDS (2), REPLICAS_WORKERS (1,2),
// REPLICAS_WORKLOADS (small,stream; any of the overhead benchmark's), REPLICAS_REPS (3),
// REPLICAS_SECONDS (3 per run).
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { writeResult } from '../lib/results.js';
import { ensureBuilt } from '../lib/services.js';
import { round } from '../lib/stats.js';
import { fmt, markdownTable } from '../lib/table.js';
import { runBurst, type BurstOutcome, type BurstStore } from './burst.js';
import { measureClaims, type ClaimRun } from './claims.js';
import { startRedis, type BenchRedis } from './redis.js';
import { measureWorkers, type WorkersRow } from './workers.js';

const env = (name: string, fallback: string): string => process.env[name] ?? fallback;
const list = (v: string): number[] => v.split(',').map(Number);

const BURST = Number(env('REPLICAS_BURST', '64'));
const WINDOW = Number(env('REPLICAS_WINDOW', '16'));
const COUNT = Number(env('REPLICAS_COUNT', '3'));
const CLAIM_CONCURRENCY = list(env('REPLICAS_CLAIM_CONCURRENCY', '1,32'));
const CLAIM_SECONDS = Number(env('REPLICAS_CLAIM_SECONDS', '2'));
const WORKER_COUNTS = list(env('REPLICAS_WORKERS', '1,2'));
const WORKLOADS = env('REPLICAS_WORKLOADS', 'small,stream').split(',');
const REPS = Number(env('REPLICAS_REPS', '3'));
const SECONDS = Number(env('REPLICAS_SECONDS', '3'));

const PARTS = ['burst', 'claims', 'workers'] as const;
const { values } = parseArgs({ options: { only: { type: 'string', default: PARTS.join(',') } } });
const only = new Set(values.only.split(','));

const load = (): string =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');

function burstTable(outcomes: readonly BurstOutcome[]): string {
  return markdownTable(
    [
      'store',
      'processes',
      'ok',
      'failed',
      'decode max in flight',
      'rooms expired',
      'total (wall s)',
      'total (sim s)',
      'latency p50 (sim s)',
      'latency p99 (sim s)',
      'failures',
    ],
    outcomes.map((o) => [
      o.store,
      o.processes,
      o.ok,
      o.failed,
      o.decodeMaxRunning,
      o.roomsExpired,
      fmt(o.wallSecs, 2),
      fmt(o.simSecs, 1),
      fmt(o.latencyP50SimSecs, 1),
      fmt(o.latencyP99SimSecs, 1),
      Object.entries(o.failures)
        .map(([code, n]) => `${n} ${code}`)
        .join(', ') || '–',
    ]),
  );
}

function claimsTable(runs: readonly ClaimRun[]): string {
  return markdownTable(
    [
      'store',
      'in flight',
      'claims/s',
      'take p50 (µs)',
      'take p99 (µs)',
      'gateway CPU µs/claim',
      'shared side',
      'shared CPU µs/claim',
    ],
    runs.map((r) => [
      r.store,
      r.concurrency,
      fmt(r.claimsPerSec, 0),
      fmt(r.takeP50Us, r.store === 'in-process' ? 2 : 0),
      fmt(r.takeP99Us, r.store === 'in-process' ? 2 : 0),
      fmt(r.gatewayCpuUsPerClaim, r.store === 'in-process' ? 3 : 1),
      r.shared,
      fmt(r.sharedCpuUsPerClaim, 1),
    ]),
  );
}

function workersTable(rows: readonly WorkersRow[]): string {
  return markdownTable(
    [
      'workload',
      '--workers',
      'req/s',
      'p50 (ms)',
      'p99 (ms)',
      'gateway CPU µs/req',
      'gateway cores',
      'of which primary',
      'sim cores',
      'client cores',
      'other load (cores)',
      'errors',
    ],
    rows.map((r) => [
      r.workload,
      r.processes,
      fmt(r.reqPerSec, 0),
      fmt(r.p50Ms, 2),
      fmt(r.p99Ms, 2),
      fmt(r.gatewayCpuUsPerReq, 0),
      fmt(r.gatewayCores, 2),
      fmt(r.primaryCores, 3),
      fmt(r.simCores, 2),
      fmt(r.clientCores, 2),
      fmt(r.otherCores, 2),
      r.errors,
    ]),
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  ensureBuilt();
  const loadAtStart = loadavg();
  console.log(`load average at start (1 / 5 / 15 min): ${load()} on this machine`);
  const redis: BenchRedis = await startRedis();
  const out: Record<string, unknown> = { redisVersion: redis.version };
  try {
    if (only.has('burst')) {
      const outcomes: BurstOutcome[] = [];
      for (const store of ['in-process', 'cluster', 'redis'] as BurstStore[]) {
        const o = await runBurst(store, { burst: BURST, window: WINDOW, replicas: COUNT, redis });
        console.log(
          `burst ${store.padEnd(10)} ok ${o.ok} failed ${o.failed} decode max ${o.decodeMaxRunning} (${o.wallSecs.toFixed(2)} s)`,
        );
        outcomes.push(o);
      }
      console.log(
        `\n#### Burst: ${BURST} requests over ${COUNT} gateway processes, one PD pair, decode window ${WINDOW} (TokenSpeed, realistic engine, time scale 0.1, prefill deadline 2 sim s)\n`,
      );
      console.log(burstTable(outcomes));
      out['burst'] = { burst: BURST, window: WINDOW, replicas: COUNT, outcomes };
    }
    if (only.has('claims')) {
      const runs = await measureClaims({
        concurrencies: CLAIM_CONCURRENCY,
        warmupMs: 1000,
        windowMs: CLAIM_SECONDS * 1000,
        redis,
      });
      console.log(
        `\n#### Claims: take + give-back on the store objects, one key, ${CLAIM_SECONDS} s windows\n`,
      );
      console.log(claimsTable(runs));
      console.log(
        '\nin-process "in flight" is tickets held at once (it answers synchronously). Cluster: the primary is a forked child on real IPC; its CPU is its own process.cpuUsage(). Redis: redis-server CPU from /proc (10 ms resolution).',
      );
      out['claims'] = {
        seconds: CLAIM_SECONDS,
        runs: runs.map((r) => ({
          ...r,
          claimsPerSec: round(r.claimsPerSec, 0),
          takeP50Us: round(r.takeP50Us, 3),
          takeP99Us: round(r.takeP99Us, 3),
          gatewayCpuUsPerClaim: round(r.gatewayCpuUsPerClaim, 3),
          sharedCpuUsPerClaim: round(r.sharedCpuUsPerClaim, 2),
        })),
      };
    }
    if (only.has('workers')) {
      const { rows, runs } = await measureWorkers(
        { processes: WORKER_COUNTS, workloads: WORKLOADS, reps: REPS, seconds: SECONDS },
        (line) => console.log(line),
      );
      console.log(
        `\n#### launch --workers N on the overhead workload (4 canned workers, medians of ${REPS} × ${SECONDS} s; nothing pinned)\n`,
      );
      console.log(workersTable(rows));
      console.log(
        '\nOn 2 cores the gateway processes, the load generator (this process) and the simulator compete for the same cores: read "client cores" and "sim cores" before reading req/s.',
      );
      out['workers'] = { reps: REPS, seconds: SECONDS, rows, runs };
    }
  } finally {
    await redis.stop();
  }
  const loadAtEnd = loadavg();
  console.log(`\nload average at end (1 / 5 / 15 min): ${load()}`);
  const busy = Math.max(loadAtStart[0] ?? 0, loadAtEnd[0] ?? 0) > availableParallelism();
  if (busy)
    console.log(
      'note: the load average was above the core count: these numbers are from a busy machine.',
    );
  const elapsedSeconds = Math.round((performance.now() - started) / 1000);
  const path = writeResult('replicas', {
    loadAverage: { start: loadAtStart, end: loadAtEnd, busy },
    elapsedSeconds,
    ...out,
  });
  console.log(`results: ${path} (${elapsedSeconds} s)`);
}

await main();
