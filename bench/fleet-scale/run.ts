// Fleet-scale benchmark: how the gateway's cost grows with the number of registered workers.
// For each fleet size (default 4, 250, 1,000 and 2,000 canned workers, each size served by one
// sim process) and each policy, one gateway (the built CLI) is started with the whole fleet as
// `--worker-urls`, and measured for:
//   - registration: from spawn until /readiness counts every worker healthy (polled every 25 ms),
//   - RSS right after registration and its peak after the load runs (/proc/PID/status),
//   - CPU per request over closed-loop runs of small non-streamed completions (the overhead
//     benchmark's `small` workload and `measure`), per policy, and its ratio to the 4-worker one,
//   - idle CPU (background load polling) of each size, once, over FLEET_SCALE_IDLE_SECONDS.
//
// Per policy, the gateways of every size are alive together and measured interleaved (rep ->
// size, order rotated per rep); the ones not being measured are paused (SIGSTOP), so their
// background polling does not share CPU 0 with the one under test. A resumed gateway first fires
// the timers that fell due while it was paused (a load-monitor round over every worker, every
// 10 s); each run waits for that burst to settle, so the window measures per-request cost and the
// background is reported apart, as idle CPU. Pinning as in the overhead benchmark: gateway on
// CPU 0, load generator and simulators on CPU 1.
//
//   node --import tsx bench/fleet-scale/run.ts        (~6-7 min; bench/results/fleet-scale.json)
//   FLEET_SCALE_SIZES=4,1000 FLEET_SCALE_POLICIES=round_robin FLEET_SCALE_REPS=1 \
//   FLEET_SCALE_SECONDS=1 node --import tsx bench/fleet-scale/run.ts            (quick look)
import {
  groupCpuSeconds,
  openFilesLimit,
  ownProcessGroup,
  pinSelf,
  procMemBytes,
  waitForQuiet,
} from '../lib/proc.js';
import { writeResult } from '../lib/results.js';
import {
  ensureBuilt,
  startGateway,
  startSimFleet,
  type GatewayProcess,
  type SimFleetProcess,
} from '../lib/services.js';
import { measure, WORKLOADS, type Workload } from '../overhead/workloads.js';
import { report, type CpuRun, type Registration } from './report.js';

const list = (name: string, fallback: string): string[] =>
  (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const SIZES = list('FLEET_SCALE_SIZES', '4,250,1000,2000').map(Number);
const POLICIES = list(
  'FLEET_SCALE_POLICIES',
  'round_robin,random,power_of_two,consistent_hashing,cache_aware,least_load',
);
const REPS = Number(process.env['FLEET_SCALE_REPS'] ?? 3);
const SECONDS = Number(process.env['FLEET_SCALE_SECONDS'] ?? 2.5);
const IDLE_SECONDS = Number(process.env['FLEET_SCALE_IDLE_SECONDS'] ?? 10);
const WARMUP_MS = 500;
const FIRST_WARMUP_MS = 1000;

const small = WORKLOADS.find((w) => w.name === 'small') as Workload;

/** The small workload; consistent_hashing gets an `x-smg-routing-key` that differs per request. */
function workloadFor(policy: string): Workload {
  if (policy !== 'consistent_hashing') return small;
  return {
    ...small,
    requestAt: (i) => ({
      ...small.request,
      headers: { 'content-type': 'application/json', 'x-smg-routing-key': `session-${i}` },
    }),
  };
}

const T0 = performance.now();
/** Seconds since start, for progress lines (where a long run spent its time). */
const at = (): string => `[${((performance.now() - T0) / 1000).toFixed(0).padStart(3)} s]`;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the process group uses at most ~10 % of a core over 200 ms (at most `maxMs`):
 * the timers that fell due while it was paused have run. Returns the time waited.
 */
async function settle(pid: number, maxMs = 5000): Promise<number> {
  const t0 = performance.now();
  let prev = groupCpuSeconds(pid);
  while (performance.now() - t0 < maxMs) {
    await sleep(200);
    const now = groupCpuSeconds(pid);
    if (now - prev <= 0.02) break;
    prev = now;
  }
  return performance.now() - t0;
}

async function main(): Promise<void> {
  // Each sim serves N listeners plus the gateway's connections to them; each gateway holds a
  // connection or more per worker. Children inherit this process's limit.
  const fdLimit = openFilesLimit();
  const sizes = SIZES.filter((n) => {
    const ok = 3 * n + 1024 <= fdLimit;
    if (!ok) console.warn(`skipping ${n} workers: open-files limit ${fdLimit} (ulimit -n) too low`);
    return ok;
  });
  if (sizes.length === 0) throw new Error('no fleet size fits the open-files limit');
  const pinned = pinSelf('1');
  const cpuGateway = pinned ? '0' : undefined;
  const cpuSim = pinned ? '1' : undefined;
  ensureBuilt();

  const sims = new Map<number, SimFleetProcess>();
  const simStartMs = new Map<number, number>();
  const gateways = new Set<GatewayProcess>();
  const registrations: Registration[] = [];
  const runs: CpuRun[] = [];
  const idle = new Map<number, number>();
  try {
    for (const n of sizes) {
      const t = performance.now();
      sims.set(
        n,
        await startSimFleet(
          n,
          ['--engine', 'canned', '--ttft-ms', '0', '--itl-ms', '1', '--seed', '1'],
          cpuSim,
        ),
      );
      simStartMs.set(n, performance.now() - t);
      console.log(
        `${at()} sim: ${n} workers listening in ${(performance.now() - t).toFixed(0)} ms`,
      );
    }
    const simOf = (n: number): SimFleetProcess => sims.get(n) as SimFleetProcess;

    for (const [pi, policy] of POLICIES.entries()) {
      const w = workloadFor(policy);
      const bySize = new Map<number, GatewayProcess>();
      // Registration, one gateway at a time, the others paused.
      for (const n of sizes) {
        const gw = await startGateway({
          workerUrls: simOf(n).urls,
          policy,
          cpus: cpuGateway,
          expectWorkers: n,
          readyTimeoutMs: 120_000,
          pollMs: 25,
        });
        gateways.add(gw);
        bySize.set(n, gw);
        const reg: Registration = {
          policy,
          workers: n,
          upMs: gw.upMs,
          readyMs: gw.readyMs,
          rssAfterRegistration: procMemBytes(gw.proc.pid, 'VmRSS'),
          rssAfterLoad: NaN,
          peakRss: NaN,
        };
        registrations.push(reg);
        console.log(
          `${at()} ${policy} ${n} workers: up ${(gw.upMs / 1000).toFixed(2)} s, ready ${(gw.readyMs / 1000).toFixed(2)} s, RSS ${(reg.rssAfterRegistration / 2 ** 20).toFixed(0)} MiB`,
        );
        gw.proc.pause();
      }
      const ours = new Set([
        ownProcessGroup(),
        ...[...sims.values()].map((s) => s.proc.pid),
        ...[...gateways].map((g) => g.proc.pid),
      ]);

      // Background CPU with no traffic (load-monitor rounds), all sizes at once, measured once.
      if (pi === 0 && IDLE_SECONDS > 0) {
        for (const gw of bySize.values()) gw.proc.resume();
        for (const gw of bySize.values()) await settle(gw.proc.pid);
        const c0 = new Map([...bySize].map(([n, g]) => [n, groupCpuSeconds(g.proc.pid)]));
        const t = performance.now();
        await sleep(IDLE_SECONDS * 1000);
        const secs = (performance.now() - t) / 1000;
        for (const [n, g] of bySize)
          idle.set(n, ((groupCpuSeconds(g.proc.pid) - (c0.get(n) ?? 0)) * 1000) / secs);
        for (const gw of bySize.values()) gw.proc.pause();
        console.log(
          `${at()} idle gateway CPU over ${secs.toFixed(1)} s: ${[...idle].map(([n, v]) => `${n} workers ${v.toFixed(1)} ms/s`).join(', ')}`,
        );
      }

      const run = async (n: number, seconds: number, warmupMs: number): Promise<CpuRun> => {
        const gw = bySize.get(n) as GatewayProcess;
        gw.proc.resume();
        try {
          const settleMs = await settle(gw.proc.pid);
          const rec = await measure(
            { name: `${policy}-${n}`, origins: [gw.url], proc: gw.proc },
            w,
            simOf(n).proc,
            ours,
            seconds,
            warmupMs,
            // Waited for once per round of sizes instead (below): the runs stay close in time.
            false,
          );
          const s = rec.summary;
          return {
            policy,
            workers: n,
            rep: -1,
            requests: s.requests,
            reqPerSec: s.reqPerSec,
            cpuUsPerRequest: (rec.proxyCpuSeconds * 1e6) / Math.max(1, s.requests),
            gatewayCore: (rec.proxyCpuSeconds * 1000) / rec.windowMs,
            p50: s.latency.p50,
            p99: s.latency.p99,
            errors: s.errors + s.dropped,
            otherCore: (rec.otherCpuSeconds * 1000) / rec.windowMs,
            settleMs,
          };
        } finally {
          gw.proc.pause();
        }
      };
      for (let rep = 0; rep < REPS; rep++) {
        // Other users' load: waited for (briefly) once per round of sizes, not before every run,
        // so a round's runs stay close in time.
        await waitForQuiet(ours, 0.2, 1500);
        const order = sizes.map((_, i) => sizes[(i + rep) % sizes.length] as number);
        for (const n of order) {
          // A gateway's first run is also its JIT warm-up: a longer unrecorded lead-in.
          const r = { ...(await run(n, SECONDS, rep === 0 ? FIRST_WARMUP_MS : WARMUP_MS)), rep };
          runs.push(r);
          console.log(
            `${at()} rep ${rep + 1}/${REPS} ${policy.padEnd(18)} ${String(n).padStart(5)} workers ${r.reqPerSec.toFixed(0).padStart(6)} req/s  ${r.cpuUsPerRequest.toFixed(0).padStart(5)} µs/req  errors ${r.errors}  other load ${(r.otherCore * 100).toFixed(0)}%`,
          );
        }
      }
      for (const [n, gw] of bySize) {
        const reg = registrations.find((r) => r.policy === policy && r.workers === n);
        if (reg) {
          reg.rssAfterLoad = procMemBytes(gw.proc.pid, 'VmRSS');
          reg.peakRss = procMemBytes(gw.proc.pid, 'VmHWM');
        }
      }
      await Promise.all([...bySize.values()].map((gw) => gw.proc.stop()));
      for (const gw of bySize.values()) gateways.delete(gw);
    }

    const out = report(registrations, runs, idle, sizes, POLICIES);
    const elapsedSeconds = Math.round((performance.now() - T0) / 1000);
    const path = writeResult('fleet-scale', {
      sizes,
      policies: POLICIES,
      reps: REPS,
      seconds: SECONDS,
      idleSeconds: IDLE_SECONDS,
      pinned,
      openFilesLimit: fdLimit,
      simStartMs: Object.fromEntries(simStartMs),
      elapsedSeconds,
      ...out,
      registrations,
      runs,
    });
    console.log(`\nwrote ${path} (${elapsedSeconds} s)`);
  } finally {
    await Promise.all([...gateways].map((gw) => gw.proc.stop()));
    await Promise.all([...sims.values()].map((s) => s.proc.stop()));
  }
}

await main();
