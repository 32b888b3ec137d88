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
  /** CPU seconds the store's server has used so far (0 for the in-process memory store). */
  storeCpu: () => number;
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
 * spawned (children of this process) and the backends they forked. The postmaster makes its
 * own session, so they are found by parent, not by this process's group.
 */
export function postgresPids(): { pids: number[]; groups: number[] } {
  const all = processes();
  const isPg = (p: ProcInfo | undefined): boolean => p?.comm === 'postgres';
  const masters = [...all].filter(([, p]) => isPg(p) && p.ppid === process.pid).map(([pid]) => pid);
  const backends = [...all]
    .filter(([, p]) => isPg(p) && masters.includes(p.ppid))
    .map(([pid]) => pid);
  const groups = [...new Set(masters.map((pid) => all.get(pid)?.pgrp ?? pid))];
  return { pids: [...masters, ...backends], groups };
}

/** CPU seconds used so far by the Postgres processes this benchmark started. */
export function postgresCpuSeconds(): number {
  return postgresPids().pids.reduce((n, pid) => n + (pidCpuSeconds(pid) || 0), 0);
}

// Total time runs may wait for other users' load to pass, so the benchmark stays near 5 min.
let quietBudgetMs = 40_000;

export async function measureStore(
  path: StorePath,
  w: Workload,
  ours: ReadonlySet<number>,
  seconds: number,
  warmupMs = 750,
): Promise<Omit<StoreRunRecord, 'rep'>> {
  let p0 = 0;
  let p1 = 0;
  let s0 = 0;
  let s1 = 0;
  let d0 = 0;
  let d1 = 0;
  let m0: CpuSnapshot = new Map();
  let m1 = m0;
  if (seconds >= 1 && quietBudgetMs > 0) {
    const t = performance.now();
    await waitForQuiet(ours, 0.2, Math.min(3000, quietBudgetMs));
    quietBudgetMs -= performance.now() - t;
  }
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
  return {
    workload: w.name,
    path: path.name,
    fleet: path.fleet,
    backend: path.backend,
    windowMs: r.windowMs,
    summary: summarize(r),
    proxyCpuSeconds: p1 - p0,
    simCpuSeconds: s1 - s0,
    storeCpuSeconds: d1 - d0,
    otherCpuSeconds: foreignCpuSeconds(m0, m1, ours),
  };
}
