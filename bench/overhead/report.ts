// Medians over reps, the per-workload tables and the headline ratios of the overhead benchmark.
// Each metric's median is taken on its own (the run with the median req/s need not hold the
// median p99), which is what "medians of n runs" means.
import type { LoadSummary } from '../lib/loadgen.js';
import { median, round } from '../lib/stats.js';
import { delta, fmt, printTable, ratio } from '../lib/table.js';
import { PD_WORKLOAD } from './workloads.js';

export interface RunRecord {
  rep: number;
  workload: string;
  path: string;
  windowMs: number;
  summary: LoadSummary;
  proxyCpuSeconds: number;
  simCpuSeconds: number;
  /** CPU used meanwhile by processes that are not ours (other users of the machine). */
  otherCpuSeconds: number;
}

export interface Aggregate {
  workload: string;
  path: string;
  reqPerSec: number;
  reqPerSecRuns: number[];
  eventsPerSec: number;
  p50: number;
  p99: number;
  ttfbP50: number;
  ttfbP99: number;
  gapMean: number;
  gapP99: number;
  /** Proxy CPU seconds per 1,000 requests (NaN for direct). */
  proxyCpuPer1k: number;
  proxyCore: number;
  simCore: number;
  clientCore: number;
  otherCore: number;
  eventsPerRequest: number;
  errors: number;
}

function aggregate(runs: readonly RunRecord[]): Aggregate {
  const first = runs[0] as RunRecord;
  const m = (f: (r: RunRecord) => number): number => median(runs.map(f));
  const direct = first.path === 'direct';
  return {
    workload: first.workload,
    path: first.path,
    reqPerSec: m((r) => r.summary.reqPerSec),
    reqPerSecRuns: runs.map((r) => Math.round(r.summary.reqPerSec)),
    eventsPerSec: m((r) => r.summary.eventsPerSec),
    p50: m((r) => r.summary.latency.p50),
    p99: m((r) => r.summary.latency.p99),
    ttfbP50: m((r) => r.summary.ttfb.p50),
    ttfbP99: m((r) => r.summary.ttfb.p99),
    gapMean: m((r) => r.summary.gap.mean),
    gapP99: m((r) => r.summary.gap.p99),
    proxyCpuPer1k: direct
      ? NaN
      : m((r) => (r.proxyCpuSeconds * 1000) / Math.max(1, r.summary.requests)),
    proxyCore: direct ? NaN : m((r) => (r.proxyCpuSeconds * 1000) / r.windowMs),
    simCore: m((r) => (r.simCpuSeconds * 1000) / r.windowMs),
    clientCore: m((r) => r.summary.clientCpuShare),
    otherCore: m((r) => (r.otherCpuSeconds * 1000) / r.windowMs),
    eventsPerRequest: m((r) => r.summary.eventsPerRequest),
    errors: runs.reduce((n, r) => n + r.summary.errors + r.summary.dropped, 0),
  };
}

const pct = (v: number): string => (Number.isFinite(v) ? `${Math.round(v * 100)}%` : '–');

interface WorkloadInfo {
  name: string;
  title: string;
  stream: boolean;
}

export function report(
  runs: readonly RunRecord[],
  workloads: readonly WorkloadInfo[],
): { aggregates: Aggregate[]; headline: Record<string, Record<string, number>> } {
  const aggregates: Aggregate[] = [];
  const headline: Record<string, Record<string, number>> = {};
  const paths = [...new Set(runs.map((r) => r.path))];
  for (const w of workloads) {
    // Not every path runs every workload (the PD path runs only the small one).
    const rows = paths
      .map((p) => runs.filter((r) => r.workload === w.name && r.path === p))
      .filter((rs) => rs.length > 0)
      .map(aggregate);
    aggregates.push(...rows);
    const d = rows.find((r) => r.path === 'direct') as Aggregate;
    const tail = (a: Aggregate): (string | number)[] => [
      fmt(a.proxyCpuPer1k, 3),
      pct(a.proxyCore),
      pct(a.simCore),
      pct(a.clientCore),
      pct(a.otherCore),
      a.errors,
    ];
    if (!w.stream) {
      printTable(
        `${w.title} (medians of ${rows[0]?.reqPerSecRuns.length ?? 0})`,
        [
          'path',
          'req/s',
          'req/s (runs)',
          'p50 ms',
          'p99 ms',
          'added p50 ms',
          'added p99 ms',
          'proxy CPU s/1k req',
          'proxy core',
          'sim core',
          'client core',
          'other load',
          'errors',
        ],
        rows.map((a) => [
          a.path,
          fmt(a.reqPerSec, 0),
          a.reqPerSecRuns.join(' / '),
          fmt(a.p50, 2),
          fmt(a.p99, 2),
          delta(a.p50, d.p50),
          delta(a.p99, d.p99),
          ...tail(a),
        ]),
      );
    } else {
      printTable(
        `${w.title} (medians of ${rows[0]?.reqPerSecRuns.length ?? 0})`,
        [
          'path',
          'req/s',
          'req/s (runs)',
          'events/s',
          'TTFB p50 ms',
          'TTFB p99 ms',
          'added TTFB p50',
          'added TTFB p99',
          'gap mean ms',
          'gap p99 ms',
          'added gap p99',
          'proxy CPU s/1k req',
          'proxy core',
          'sim core',
          'client core',
          'other load',
          'errors',
        ],
        rows.map((a) => [
          a.path,
          fmt(a.reqPerSec, 0),
          a.reqPerSecRuns.join(' / '),
          fmt(a.eventsPerSec, 0),
          fmt(a.ttfbP50, 2),
          fmt(a.ttfbP99, 2),
          delta(a.ttfbP50, d.ttfbP50),
          delta(a.ttfbP99, d.ttfbP99),
          fmt(a.gapMean, 3),
          fmt(a.gapP99, 2),
          delta(a.gapP99, d.gapP99),
          ...tail(a),
        ]),
      );
    }
  }

  // Headline: Switchyard against each alternative, per workload and metric.
  const get = (w: string, p: string): Aggregate | undefined =>
    aggregates.find((a) => a.workload === w && a.path === p);
  const rows: (string | number)[][] = [];
  for (const w of workloads) {
    const sy = get(w.name, 'switchyard');
    if (!sy) continue;
    const metrics: [string, (a: Aggregate) => number][] = w.stream
      ? [
          ['req/s', (a) => a.reqPerSec],
          ['events/s', (a) => a.eventsPerSec],
          ['TTFB p50', (a) => a.ttfbP50],
          ['TTFB p99', (a) => a.ttfbP99],
          ['gap mean', (a) => a.gapMean],
          ['gap p99', (a) => a.gapP99],
          ['proxy CPU / req', (a) => a.proxyCpuPer1k],
        ]
      : [
          ['req/s', (a) => a.reqPerSec],
          ['p50', (a) => a.p50],
          ['p99', (a) => a.p99],
          ['proxy CPU / req', (a) => a.proxyCpuPer1k],
        ];
    for (const [name, f] of metrics) {
      const vs = (p: string): number => {
        const o = get(w.name, p);
        return o ? f(sy) / f(o) : NaN;
      };
      headline[`${w.name} ${name}`] = {
        nginx: round(vs('nginx'), 3),
        haproxy: round(vs('haproxy'), 3),
        direct: round(vs('direct'), 3),
      };
      rows.push([
        w.name,
        name,
        ratio(f(sy), f(get(w.name, 'nginx') ?? sy)),
        ratio(f(sy), f(get(w.name, 'haproxy') ?? sy)),
        name.startsWith('proxy') ? '–' : ratio(f(sy), f(get(w.name, 'direct') ?? sy)),
      ]);
    }
  }
  printTable(
    'Headline ratios (Switchyard ÷ other; for req/s higher is better, for the rest lower is better)',
    ['workload', 'metric', 'Switchyard / nginx', 'Switchyard / haproxy', 'Switchyard / direct'],
    rows,
  );

  // CPU per relayed SSE event: (stream CPU/req − small CPU/req) ÷ (events − 1), as
  // docs/benchmarks.md defines it.
  const small = workloads.find((w) => !w.stream && w.name === 'small');
  const stream = workloads.find((w) => w.stream);
  if (small && stream) {
    const perEvent = paths
      .filter((p) => p !== 'direct' && get(stream.name, p) !== undefined)
      .map((p) => {
        const s = get(small.name, p);
        const t = get(stream.name, p);
        const us =
          s && t
            ? ((t.proxyCpuPer1k - s.proxyCpuPer1k) * 1000) / Math.max(1, t.eventsPerRequest - 1)
            : NaN;
        headline[`cpu per event µs`] = {
          ...(headline['cpu per event µs'] ?? {}),
          [p]: round(us, 2),
        };
        return [
          p,
          fmt(s ? s.proxyCpuPer1k * 1000 : NaN, 0),
          fmt(t ? t.proxyCpuPer1k * 1000 : NaN, 0),
          fmt(t?.eventsPerRequest ?? NaN, 0),
          fmt(us, 2),
        ];
      });
    printTable(
      'Proxy CPU per request and per relayed SSE event (medians)',
      ['path', 'µs / small request', 'µs / stream', 'events / stream', 'µs / event'],
      perEvent,
    );
  }
  pdRatio(runs, get, headline);
  return { aggregates, headline };
}

/** Target for the PD line: a PD request (two upstream legs) at most this many regular ones. */
export const PD_CPU_RATIO_TARGET = 2.2;

/**
 * CPU per small request through the PD gateway next to the regular gateway's: the ratio of the
 * medians, and the ratio within each rep (the two ran back to back in it) for the spread.
 */
function pdRatio(
  runs: readonly RunRecord[],
  get: (w: string, p: string) => Aggregate | undefined,
  headline: Record<string, Record<string, number>>,
): void {
  const pd = get(PD_WORKLOAD, 'switchyard-pd');
  const regular = get(PD_WORKLOAD, 'switchyard');
  if (!pd || !regular) return;
  const perReq = (r: RunRecord): number => r.proxyCpuSeconds / Math.max(1, r.summary.requests);
  const perRep = [...new Set(runs.map((r) => r.rep))].map((rep) => {
    const one = (p: string): RunRecord | undefined =>
      runs.find((r) => r.rep === rep && r.workload === PD_WORKLOAD && r.path === p);
    const a = one('switchyard-pd');
    const b = one('switchyard');
    return a && b ? perReq(a) / perReq(b) : NaN;
  });
  const value = pd.proxyCpuPer1k / regular.proxyCpuPer1k;
  headline[`${PD_WORKLOAD} pd cpu / regular cpu`] = {
    ratio: round(value, 3),
    perRepMedian: round(median(perRep), 3),
    target: PD_CPU_RATIO_TARGET,
  };
  printTable(
    `PD: CPU per small request through a canned prefill/decode pair next to a regular one (medians of ${perRep.length})`,
    [
      'path',
      'req/s',
      'p50 ms',
      'p99 ms',
      'µs / request',
      'gateway core',
      'PD / regular CPU',
      'per rep',
      'target',
    ],
    [regular, pd].map((a) => [
      a.path,
      fmt(a.reqPerSec, 0),
      fmt(a.p50, 2),
      fmt(a.p99, 2),
      fmt(a.proxyCpuPer1k * 1000, 0),
      pct(a.proxyCore),
      a === pd ? ratio(pd.proxyCpuPer1k, regular.proxyCpuPer1k) : '1.00×',
      a === pd ? perRep.map((v) => fmt(v, 2)).join(' / ') : '–',
      a === pd
        ? `≤ ${PD_CPU_RATIO_TARGET.toFixed(1)}× ${value <= PD_CPU_RATIO_TARGET ? 'met' : 'not met'}`
        : '–',
    ]),
  );
}
