// `launch --workers N` on the overhead benchmark's workloads: the built binary in front of 4 canned
// regular workers (one `switchyard sim` process), driven by the overhead benchmark's load generator
// and measured by its `measure` (req/s, latency, the CPU of the gateway's process group: with
// N > 1 the primary and its N children, who share the group, at the window's edges). Nothing is
// pinned: N processes on a 2-core machine need both cores, so the gateway, the load generator and
// the simulator compete for them, and req/s is bounded by the machine, not by the gateway alone.
import { ownProcessGroup, pidCpuSeconds, type Managed } from '../lib/proc.js';
import { median, round } from '../lib/stats.js';
import { startSimFleet, type GatewayProcess } from '../lib/services.js';
import type { RunRecord } from '../overhead/report.js';
import { measure, WORKLOADS, type PathUnderTest, type Workload } from '../overhead/workloads.js';
import { startLaunch } from './launch.js';

export interface WorkersOptions {
  processes: readonly number[];
  workloads: readonly string[];
  reps: number;
  seconds: number;
}

export interface WorkersRow {
  workload: string;
  processes: number;
  reqPerSec: number;
  reqPerSecRuns: number[];
  p50Ms: number;
  p99Ms: number;
  /** Gateway CPU (every process of the launch) per request, µs. */
  gatewayCpuUsPerReq: number;
  gatewayCores: number;
  /**
   * N > 1: the primary's own share of the gateway's CPU (it hands connections to the processes
   * and answers admission), in cores over the whole run (warm-up included); NaN for N = 1.
   */
  primaryCores: number;
  simCores: number;
  clientCores: number;
  otherCores: number;
  errors: number;
}

function label(n: number): string {
  return `workers=${n}`;
}

/** A measured run and the primary's cores over it (leader pid of the launch's group). */
type WorkersRun = RunRecord & { primaryCores: number };

function rowOf(workload: string, n: number, runs: readonly WorkersRun[]): WorkersRow {
  const m = (f: (r: WorkersRun) => number): number => median(runs.map(f));
  return {
    workload,
    processes: n,
    reqPerSec: round(m((r) => r.summary.reqPerSec)),
    reqPerSecRuns: runs.map((r) => Math.round(r.summary.reqPerSec)),
    p50Ms: round(m((r) => r.summary.latency.p50)),
    p99Ms: round(m((r) => r.summary.latency.p99)),
    gatewayCpuUsPerReq: round(
      m((r) => (r.proxyCpuSeconds * 1e6) / Math.max(1, r.summary.requests)),
      1,
    ),
    gatewayCores: round(m((r) => (r.proxyCpuSeconds * 1000) / r.windowMs)),
    primaryCores:
      n > 1
        ? round(
            m((r) => r.primaryCores),
            3,
          )
        : Number.NaN,
    simCores: round(m((r) => (r.simCpuSeconds * 1000) / r.windowMs)),
    clientCores: round(m((r) => r.summary.clientCpuShare)),
    otherCores: round(m((r) => (r.otherCpuSeconds * 1000) / r.windowMs)),
    errors: runs.reduce((n, r) => n + r.summary.errors + r.summary.dropped, 0),
  };
}

export async function measureWorkers(
  opts: WorkersOptions,
  log: (line: string) => void,
): Promise<{ rows: WorkersRow[]; runs: WorkersRun[] }> {
  const workloads: Workload[] = WORKLOADS.filter((w) => opts.workloads.includes(w.name));
  const procs: Managed[] = [];
  try {
    // The overhead benchmark's canned fleet: first token at once, then one token per ms.
    const fleet = await startSimFleet(4, [
      ...['--engine', 'canned', '--ttft-ms', '0', '--itl-ms', '1', '--seed', '1'],
    ]);
    procs.push(fleet.proc);
    const gateways: { n: number; gw: GatewayProcess }[] = [];
    for (const n of opts.processes) {
      const gw = await startLaunch(n, { workerUrls: fleet.urls, policy: 'round_robin' });
      procs.push(gw.proc);
      gateways.push({ n, gw });
    }
    const paths: (PathUnderTest & { n: number })[] = gateways.map(({ n, gw }) => ({
      n,
      name: label(n),
      origins: [gw.url],
      proc: gw.proc,
    }));
    const ours = new Set([ownProcessGroup(), ...procs.map((p) => p.pid)]);
    // One unrecorded pass: JIT warm-up in every process, connection pools filled.
    for (const p of paths)
      for (const w of workloads) await measure(p, w, fleet.proc, ours, 0.5, 500);
    const runs: WorkersRun[] = [];
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const w of workloads) {
        // Rotated each rep, so neither launch always runs first.
        const order = paths.map((_, i) => paths[(i + rep) % paths.length] as (typeof paths)[0]);
        for (const p of order) {
          const leader = p.proc?.pid ?? -1;
          const [c0, t0] = [pidCpuSeconds(leader), performance.now()];
          const rec = await measure(p, w, fleet.proc, ours, opts.seconds);
          const primaryCores = ((pidCpuSeconds(leader) - c0) * 1000) / (performance.now() - t0);
          runs.push({ rep, ...rec, primaryCores });
          const s = rec.summary;
          const other = (rec.otherCpuSeconds * 1000) / rec.windowMs;
          log(
            `rep ${rep + 1}/${opts.reps} ${w.name.padEnd(6)} ${p.name.padEnd(9)} ${s.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${s.latency.p50.toFixed(2)} ms  gateway ${((rec.proxyCpuSeconds * 1000) / rec.windowMs).toFixed(2)} cores  errors ${s.errors}  other load ${(other * 100).toFixed(0)}%`,
          );
        }
      }
    }
    const rows = workloads.flatMap((w) =>
      paths.map((p) =>
        rowOf(
          w.name,
          p.n,
          runs.filter((r) => r.workload === w.name && r.path === p.name),
        ),
      ),
    );
    return { rows, runs };
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}
