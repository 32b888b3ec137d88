// One measured run of the history-store benchmark: bench/overhead's `measure` (the same load
// generator, window and CPU readings), plus the CPU the store's own server (redis-server, the
// Postgres backends) used inside the same window, which `measure` has no place to read.
import { readdirSync, readFileSync } from 'node:fs';
import { runLoad, summarize } from '../lib/loadgen.js';
import {
  cpuSnapshot,
  foreignCpuSeconds,
  groupCpuSeconds,
  pidCpuSeconds,
  waitForQuiet,
  type CpuSnapshot,
  type Managed,
} from '../lib/proc.js';
import type { RunRecord } from '../overhead/report.js';
import type { Workload } from '../overhead/workloads.js';

/** A gateway with one history backend, in front of one fleet. */
export interface StorePath {
  /** `<fleet>-<backend>`, e.g. `grpc-redis`. */
  name: string;
  fleet: string;
  backend: string;
  url: string;
  proc: Managed;
  sim: Managed;
  /**
   * CPU seconds each process of the store's server has used so far, by pid (empty for the
   * in-process memory store): per process, since Postgres backends come and go with the pool.
   */
  storeCpu: () => Map<number, number>;
}

export interface StoreRunRecord extends RunRecord {
  fleet: string;
  backend: string;
  storeCpuSeconds: number;
}

interface ProcInfo {
  ppid: number;
  pgrp: number;
  comm: string;
}

function processes(): Map<number, ProcInfo> {
  const out = new Map<number, ProcInfo>();
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // fields[0] is stat field 3 (state): the parent (field 4) is fields[1], the group fields[2].
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), { ppid: Number(fields[1]), pgrp: Number(fields[2]), comm });
    } catch {
      // Gone between readdir and read.
    }
  }
  return out;
}

/**
 * The Postgres processes this benchmark started: the postmasters test/helpers' PostgresServer
 * spawned (children of this process) and the processes they forked, with their process groups.
 * Every process the postmaster forks starts a session of its own, so they are found by parent,
 * not by this process's group, and each backend's group must be counted as ours.
 */
export function postgresPids(): { pids: number[]; groups: number[] } {
  const all = processes();
  const isPg = (p: ProcInfo | undefined): boolean => p?.comm === 'postgres';
  const masters = [...all].filter(([, p]) => isPg(p) && p.ppid === process.pid).map(([pid]) => pid);
  const backends = [...all]
    .filter(([, p]) => isPg(p) && masters.includes(p.ppid))
    .map(([pid]) => pid);
  const pids = [...masters, ...backends];
  return { pids, groups: [...new Set(pids.map((pid) => all.get(pid)?.pgrp ?? pid))] };
}

/** CPU seconds used so far by each Postgres process this benchmark started. */
export function postgresCpu(): Map<number, number> {
  return new Map(postgresPids().pids.map((pid) => [pid, pidCpuSeconds(pid) || 0]));
}

/** CPU used between two readings: processes that ended in between are missed, never negative. */
function cpuBetween(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, t] of b) total += Math.max(0, t - (a.get(pid) ?? 0));
  return total;
}

// Total time the benchmark may wait for other users' load to pass, so it stays near 5 min.
let quietBudgetMs = 40_000;

/** Waits (up to 3 s, within the budget) for other processes to use under 20 % of a core. */
export async function settle(ours: ReadonlySet<number>): Promise<void> {
  if (quietBudgetMs <= 0) return;
  const t = performance.now();
  await waitForQuiet(ours, 0.2, Math.min(3000, quietBudgetMs));
  quietBudgetMs -= performance.now() - t;
}

export async function measureStore(
  path: StorePath,
  w: Workload,
  ours: ReadonlySet<number>,
  seconds: number,
  warmupMs = 300,
): Promise<Omit<StoreRunRecord, 'rep'>> {
  let p0 = 0;
  let p1 = 0;
  let s0 = 0;
  let s1 = 0;
  let d0 = new Map<number, number>();
  let d1 = d0;
  let m0: CpuSnapshot = new Map();
  let m1 = m0;
  const r = await runLoad({
    origins: [path.url],
    request: w.requestAt ?? (() => w.request),
    ...(w.closed ? { closed: w.closed } : {}),
    ...(w.open ? { open: { ...w.open, seed: 7, maxInFlight: 512 } } : {}),
    warmupMs,
    durationMs: seconds * 1000,
    onWindowStart: () => {
      p0 = groupCpuSeconds(path.proc.pid);
      s0 = groupCpuSeconds(path.sim.pid);
      d0 = path.storeCpu();
      m0 = cpuSnapshot();
    },
    onWindowEnd: () => {
      p1 = groupCpuSeconds(path.proc.pid);
      s1 = groupCpuSeconds(path.sim.pid);
      d1 = path.storeCpu();
      m1 = cpuSnapshot();
    },
  });
  // Postgres backends the pool opened meanwhile are ours too, each in a group of its own.
  const oursNow = new Set([...ours, ...postgresPids().groups]);
  return {
    workload: w.name,
    path: path.name,
    fleet: path.fleet,
    backend: path.backend,
    windowMs: r.windowMs,
    summary: summarize(r),
    proxyCpuSeconds: p1 - p0,
    simCpuSeconds: s1 - s0,
    storeCpuSeconds: cpuBetween(d0, d1),
    otherCpuSeconds: foreignCpuSeconds(m0, m1, oursNow),
  };
}
