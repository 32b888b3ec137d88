// Tables of the fleet-scale benchmark: registration (time to ready, memory, idle CPU) per fleet
// size, and CPU per request per policy and size with its ratio to the smallest fleet, next to the
// targets. Medians over reps (CPU) and over the per-policy gateway starts (registration).
import { median, round } from '../lib/stats.js';
import { fmt, printTable, ratio } from '../lib/table.js';

/** One gateway start: how long registration took and what it holds in memory. */
export interface Registration {
  policy: string;
  workers: number;
  /** Spawn to the first /readiness answer (Node startup, config, listeners), ms. */
  upMs: number;
  /** Spawn to /readiness counting every worker healthy, ms. */
  readyMs: number;
  /** VmRSS right after registration, bytes. */
  rssAfterRegistration: number;
  /** VmRSS after the load runs, and VmHWM (peak), bytes. */
  rssAfterLoad: number;
  peakRss: number;
}

/** One measured closed-loop run of small completions through one gateway. */
export interface CpuRun {
  policy: string;
  workers: number;
  rep: number;
  requests: number;
  reqPerSec: number;
  /** Gateway CPU (utime + stime, /proc) in the window ÷ requests completed in it, µs. */
  cpuUsPerRequest: number;
  /** Gateway CPU seconds per wall second in the window. */
  gatewayCore: number;
  p50: number;
  p99: number;
  errors: number;
  otherCore: number;
  /** Time the resumed gateway took to finish the background work that fell due while paused. */
  settleMs: number;
}

/** Targets: CPU per request at 1,000 workers over 4 workers for these policies; 2,000 ready in 5 s. */
export const CPU_RATIO_TARGET = { workers: 1000, base: 4, max: 1.1 };
export const CPU_TARGET_POLICIES: ReadonlySet<string> = new Set([
  'round_robin',
  'random',
  'power_of_two',
  'consistent_hashing',
  'cache_aware',
]);
export const READY_TARGET = { workers: 2000, maxSeconds: 5 };

const MiB = 2 ** 20;

export interface SizeAggregate {
  workers: number;
  cpuUsPerRequest: number;
  cpuUsPerRequestRuns: number[];
  /** CPU per request ÷ the base size's in the same rep, per rep. */
  ratioPerRep: number[];
  reqPerSec: number;
  gatewayCore: number;
  p50: number;
  p99: number;
  otherCore: number;
  errors: number;
}

export interface PolicyAggregate {
  policy: string;
  bySize: SizeAggregate[];
  /** The fleet size the ratios divide by (the smallest measured). */
  ratioToWorkers: number;
  /** CPU per request at each size ÷ at `ratioToWorkers`, keyed by size. */
  ratios: Record<string, number>;
}

const pct = (v: number): string => (Number.isFinite(v) ? `${Math.round(v * 100)}%` : '–');

export function report(
  registrations: readonly Registration[],
  runs: readonly CpuRun[],
  idleMsPerSec: ReadonlyMap<number, number>,
  sizes: readonly number[],
  policies: readonly string[],
): { registration: Record<string, unknown>[]; cpu: PolicyAggregate[] } {
  const base = sizes[0] as number;

  const registration = sizes.map((n) => {
    const rs = registrations.filter((r) => r.workers === n);
    const m = (f: (r: Registration) => number): number => median(rs.map(f));
    return {
      workers: n,
      readySeconds: round(m((r) => r.readyMs) / 1000, 3),
      readySecondsRuns: rs.map((r) => round(r.readyMs / 1000, 2)),
      upSeconds: round(m((r) => r.upMs) / 1000, 3),
      rssMiB: round(m((r) => r.rssAfterRegistration) / MiB, 1),
      rssAfterLoadMiB: round(m((r) => r.rssAfterLoad) / MiB, 1),
      peakRssMiB: round(m((r) => r.peakRss) / MiB, 1),
      idleCpuMsPerSec: round(idleMsPerSec.get(n) ?? NaN, 1),
    };
  });
  printTable(
    `Registration: spawn to every worker ready (medians of ${policies.length} gateway starts, one per policy)`,
    [
      'workers',
      'ready s',
      'ready s (runs)',
      'up s',
      'RSS after reg. MiB',
      'RSS after load MiB',
      'peak RSS MiB',
      'idle CPU ms/s',
      'target',
    ],
    registration.map((r) => [
      r.workers,
      fmt(r.readySeconds, 2),
      r.readySecondsRuns.map((v) => fmt(v, 2)).join(' / '),
      fmt(r.upSeconds, 2),
      fmt(r.rssMiB, 0),
      fmt(r.rssAfterLoadMiB, 0),
      fmt(r.peakRssMiB, 0),
      fmt(r.idleCpuMsPerSec, 1),
      r.workers === READY_TARGET.workers
        ? `≤ ${READY_TARGET.maxSeconds} s ${r.readySeconds <= READY_TARGET.maxSeconds ? 'met' : 'not met'}`
        : '–',
    ]),
  );

  const aggregate = (policy: string, n: number): SizeAggregate => {
    const rs = runs.filter((r) => r.policy === policy && r.workers === n);
    const m = (f: (r: CpuRun) => number): number => median(rs.map(f));
    // Within a rep the sizes ran minutes apart at most: the ratio per rep shows how much of the
    // spread between reps is the machine's (other users) rather than the fleet size's.
    const baseIn = (rep: number): number =>
      runs.find((r) => r.policy === policy && r.workers === base && r.rep === rep)
        ?.cpuUsPerRequest ?? NaN;
    return {
      workers: n,
      cpuUsPerRequest: m((r) => r.cpuUsPerRequest),
      cpuUsPerRequestRuns: rs.map((r) => Math.round(r.cpuUsPerRequest)),
      ratioPerRep: rs.map((r) => round(r.cpuUsPerRequest / baseIn(r.rep), 2)),
      reqPerSec: m((r) => r.reqPerSec),
      gatewayCore: m((r) => r.gatewayCore),
      p50: m((r) => r.p50),
      p99: m((r) => r.p99),
      otherCore: m((r) => r.otherCore),
      errors: rs.reduce((sum, r) => sum + r.errors, 0),
    };
  };
  const cpu: PolicyAggregate[] = policies.map((policy) => {
    const bySize = sizes.map((n) => aggregate(policy, n));
    const at = (n: number): number => bySize.find((a) => a.workers === n)?.cpuUsPerRequest ?? NaN;
    return {
      policy,
      bySize,
      ratioToWorkers: base,
      ratios: Object.fromEntries(sizes.map((n) => [String(n), round(at(n) / at(base), 3)])),
    };
  });

  const targetCell = (c: PolicyAggregate): string => {
    if (!CPU_TARGET_POLICIES.has(c.policy)) return 'none';
    const v = c.ratios[String(CPU_RATIO_TARGET.workers)];
    if (base !== CPU_RATIO_TARGET.base || v === undefined) return '–';
    return `≤ ${CPU_RATIO_TARGET.max.toFixed(1)}× ${v <= CPU_RATIO_TARGET.max ? 'met' : 'not met'}`;
  };
  printTable(
    `Gateway CPU per small request, µs (medians of reps), and ratio to ${base} workers`,
    [
      'policy',
      ...sizes.map((n) => `${n} workers`),
      ...sizes.slice(1).map((n) => `${n} / ${base}`),
      `target ${CPU_RATIO_TARGET.workers} / ${CPU_RATIO_TARGET.base}`,
    ],
    cpu.map((c) => [
      c.policy,
      ...c.bySize.map((a) => fmt(a.cpuUsPerRequest, 0)),
      ...c.bySize
        .slice(1)
        .map((a) => ratio(a.cpuUsPerRequest, c.bySize[0]?.cpuUsPerRequest ?? NaN)),
      targetCell(c),
    ]),
  );
  printTable(
    'Per policy and size: µs per request (each rep), req/s, gateway core, latency, idle CPU spread over the requests, other load (medians)',
    [
      'policy',
      'workers',
      'µs/req (runs)',
      `÷ ${base} workers (per rep)`,
      'req/s',
      'gateway core',
      'p50 ms',
      'p99 ms',
      'idle CPU µs/req',
      'other load',
      'errors',
    ],
    cpu.flatMap((c) =>
      c.bySize.map((a) => [
        c.policy,
        a.workers,
        a.cpuUsPerRequestRuns.join(' / '),
        a.ratioPerRep.map((v) => fmt(v, 2)).join(' / '),
        fmt(a.reqPerSec, 0),
        pct(a.gatewayCore),
        fmt(a.p50, 2),
        fmt(a.p99, 2),
        // The background (load polling) spread over this rate's requests: what a window holding
        // its share of polling rounds would add to µs/req.
        fmt(((idleMsPerSec.get(a.workers) ?? NaN) * 1000) / a.reqPerSec, 1),
        pct(a.otherCore),
        a.errors,
      ]),
    ),
  );
  return { registration, cpu };
}
