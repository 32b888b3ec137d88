// `npm run bench`: every benchmark under bench/, one after the other, each in its own process
// (so one failing or hanging does not take the others down), each bounded by a timeout, then a
// summary of what ran. Benchmarks other engineers are still writing run once their files exist.
//
//   node --import tsx bench/run-all.ts                      (all, < 32 min on 2 cores)
//   node --import tsx bench/run-all.ts --only overhead,cache-aware
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ROOT } from './lib/results.js';
import { ensureBuilt } from './lib/services.js';
import { markdownTable } from './lib/table.js';

interface Bench {
  name: string;
  file: string;
  args?: string[];
  /** Hard limit; the benchmark is stopped (SIGTERM, then SIGKILL) past it. */
  timeoutSec: number;
}

const BENCHES: Bench[] = [
  { name: 'micro', file: 'bench/micro/policies.bench.ts', timeoutSec: 120 },
  { name: 'sim-capacity', file: 'bench/sim-capacity/run.ts', timeoutSec: 120 },
  { name: 'overhead', file: 'bench/overhead/run.ts', timeoutSec: 330 },
  { name: 'overhead-profile', file: 'bench/overhead/run.ts', args: ['--profile'], timeoutSec: 90 },
  { name: 'cache-aware', file: 'bench/cache-aware/run.ts', timeoutSec: 180 },
  { name: 'pd-burst', file: 'bench/pd-burst/run.ts', timeoutSec: 180 },
  { name: 'prefill-admission', file: 'bench/prefill-admission/run.ts', timeoutSec: 180 },
  { name: 'replicas', file: 'bench/replicas/run.ts', timeoutSec: 240 },
  { name: 'fleet-scale', file: 'bench/fleet-scale/run.ts', timeoutSec: 540 },
  { name: 'grpc-tokenizer', file: 'bench/grpc/tokenizer.bench.ts', timeoutSec: 120 },
  { name: 'grpc', file: 'bench/grpc/run.ts', timeoutSec: 480 },
  { name: 'grpc-faults', file: 'bench/grpc-faults/run.ts', timeoutSec: 300 },
  { name: 'history-store', file: 'bench/history-store/run.ts', timeoutSec: 360 },
];
// ~16.5 min before the gRPC benchmarks (the replicas benchmark ~2.5 of it), which add ~6 (with
// its Anthropic Messages and Responses workloads), then ~2 for the gRPC fault storm and ~4.5 for
// the history stores.
const BUDGET_SEC = 32 * 60;

let current: ChildProcess | undefined;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

// The benchmark runs in its own process group (so a timeout can reach all of it); a Ctrl-C here
// must therefore be passed on, and the benchmark's own handlers then stop its children.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (current) {
      killGroup(current, 'SIGTERM');
      setTimeout(() => {
        if (current) killGroup(current, 'SIGKILL');
        process.exit(130);
      }, 5000).unref();
      current.once('exit', () => process.exit(130));
    } else process.exit(130);
  });
}
process.on('exit', () => {
  if (current) killGroup(current, 'SIGKILL');
});

function run(b: Bench): Promise<{ code: number | null; seconds: number; timedOut: boolean }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', b.file, ...(b.args ?? [])], {
      cwd: ROOT,
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, BENCH_SKIP_BUILD: '1' },
    });
    current = child;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\n${b.name}: over ${b.timeoutSec} s, stopping it`);
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 10_000).unref();
    }, b.timeoutSec * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      current = undefined;
      resolve({ code, seconds: (performance.now() - t0) / 1000, timedOut });
    });
  });
}

async function main(): Promise<number> {
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt !== -1 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
  const t0 = performance.now();
  ensureBuilt();
  const rows: (string | number)[][] = [];
  let failed = 0;
  for (const b of BENCHES) {
    if (only && !only.has(b.name)) continue;
    if (!existsSync(`${ROOT}${b.file}`)) {
      rows.push([b.name, b.file, 'not present', '–']);
      continue;
    }
    const spent = (performance.now() - t0) / 1000;
    if (spent + b.timeoutSec > BUDGET_SEC + 120) {
      rows.push([b.name, b.file, 'skipped (time budget)', '–']);
      continue;
    }
    console.log(`\n=== ${b.name}: node --import tsx ${[b.file, ...(b.args ?? [])].join(' ')}\n`);
    const r = await run(b);
    const ok = r.code === 0 && !r.timedOut;
    if (!ok) failed++;
    rows.push([
      b.name,
      b.file,
      ok ? 'ok' : r.timedOut ? 'timed out' : `failed (exit ${r.code})`,
      r.seconds.toFixed(0),
    ]);
  }
  console.log(
    `\n=== summary (${((performance.now() - t0) / 60_000).toFixed(1)} min; results in bench/results/)\n`,
  );
  console.log(markdownTable(['benchmark', 'script', 'status', 'seconds'], rows));
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
