// Medians over samples and the one table of the history-store benchmark: for each fleet and backend,
// what storing costs against the same gateway's `store: false` request, as ratios of gateway CPU
// per request and of latency percentiles. Every ratio is taken within one gateway and one sample
// (half of an A B C D D C B A block, the runs seconds apart) and the median of those is shown;
// the µs a store adds is the median of the per-sample differences. The continuation also reads
// against the client resending its history.
import { median, round } from '../lib/stats.js';
import { fmt, printTable } from '../lib/table.js';
import type { StoreRunRecord } from './measure.js';

export interface StoreAggregate {
  fleet: string;
  backend: string;
  workload: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number;
  cpuUsPerReqRuns: number[];
  /** Per-sample ratios of gateway CPU per request to the same gateway's store-off run. */
  cpuRatioRuns: number[];
  cpuRatio: number;
  /** Median of per-sample (this − store-off) gateway µs per request. */
  cpuAddedUs: number;
  p50Ratio: number;
  p99Ratio: number;
  /** Continuation only: gateway CPU ÷ the resend run's (the same prompt, no store). */
  cpuRatioToResend: number;
  /** CPU of redis-server or the Postgres backends per request (memory: in the gateway). */
  storeUsPerReq: number;
  gatewayCore: number;
  otherCore: number;
  errors: number;
}

const perReqUs = (r: StoreRunRecord): number =>
  (r.proxyCpuSeconds * 1e6) / Math.max(1, r.summary.requests);

function aggregate(
  runs: readonly StoreRunRecord[],
  all: readonly StoreRunRecord[],
): StoreAggregate {
  const first = runs[0] as StoreRunRecord;
  const m = (f: (r: StoreRunRecord) => number): number => median(runs.map(f));
  // The same gateway's run of `workload` in the same sample.
  const twin = (r: StoreRunRecord, workload: string): StoreRunRecord | undefined =>
    all.find((x) => x.rep === r.rep && x.path === r.path && x.workload === workload);
  const against = (
    workload: string,
    f: (a: StoreRunRecord, b: StoreRunRecord) => number,
  ): number[] =>
    runs.map((r) => {
      const b = twin(r, workload);
      return b ? f(r, b) : NaN;
    });
  const cpuRatioRuns = against('store-off', (a, b) => perReqUs(a) / perReqUs(b));
  const agg: StoreAggregate = {
    fleet: first.fleet,
    backend: first.backend,
    workload: first.workload,
    reqPerSec: m((r) => r.summary.reqPerSec),
    p50: m((r) => r.summary.latency.p50),
    p99: m((r) => r.summary.latency.p99),
    cpuUsPerReq: m(perReqUs),
    cpuUsPerReqRuns: runs.map((r) => Math.round(perReqUs(r))),
    cpuRatioRuns: cpuRatioRuns.map((v) => round(v, 3)),
    cpuRatio: median(cpuRatioRuns),
    cpuAddedUs: median(against('store-off', (a, b) => perReqUs(a) - perReqUs(b))),
    p50Ratio: median(against('store-off', (a, b) => a.summary.latency.p50 / b.summary.latency.p50)),
    p99Ratio: median(against('store-off', (a, b) => a.summary.latency.p99 / b.summary.latency.p99)),
    cpuRatioToResend:
      first.workload === 'chain'
        ? median(against('resend', (a, b) => perReqUs(a) / perReqUs(b)))
        : NaN,
    storeUsPerReq: m((r) => (r.storeCpuSeconds * 1e6) / Math.max(1, r.summary.requests)),
    gatewayCore: m((r) => (r.proxyCpuSeconds * 1000) / r.windowMs),
    otherCore: m((r) => (r.otherCpuSeconds * 1000) / r.windowMs),
    errors: runs.reduce((n, r) => n + r.summary.errors + r.summary.dropped, 0),
  };
  return agg;
}

const pct = (v: number): string => (Number.isFinite(v) ? `${Math.round(v * 100)}%` : '–');
const x = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
const signed = (v: number): string =>
  Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(0)}` : '–';

export function report(
  runs: readonly StoreRunRecord[],
  workloads: readonly string[],
  rates: Readonly<Record<string, number>>,
): StoreAggregate[] {
  const out: StoreAggregate[] = [];
  const paths = [...new Set(runs.map((r) => r.path))];
  for (const p of paths)
    for (const w of workloads) {
      const rs = runs.filter((r) => r.path === p && r.workload === w);
      if (rs.length > 0) out.push(aggregate(rs, runs));
    }
  const samples = new Set(runs.map((r) => r.rep)).size;
  printTable(
    `Storing a response, per request: each row ÷ the same gateway's store-false request (medians of ${samples} per-sample ratios; Poisson arrivals, ${Object.entries(
      rates,
    )
      .map(([f, r]) => `${f} ${r} req/s`)
      .join(', ')})`,
    [
      'fleet',
      'backend',
      'workload',
      'req/s',
      'p50 ms',
      'p99 ms',
      'gateway µs / req',
      'CPU ÷ store-off',
      'per sample',
      'µs added',
      'p50 ÷',
      'p99 ÷',
      'CPU ÷ resend',
      'store server µs / req',
      'gateway core',
      'other load',
      'errors',
    ],
    out.map((a) => [
      a.fleet,
      a.backend,
      a.workload,
      fmt(a.reqPerSec, 0),
      fmt(a.p50, 2),
      fmt(a.p99, 2),
      fmt(a.cpuUsPerReq, 0),
      a.workload === 'store-off' ? '1.00×' : x(a.cpuRatio),
      a.cpuRatioRuns.map((v) => fmt(v, 2)).join(' / '),
      a.workload === 'store-off' ? '–' : signed(a.cpuAddedUs),
      a.workload === 'store-off' ? '1.00×' : x(a.p50Ratio),
      a.workload === 'store-off' ? '1.00×' : x(a.p99Ratio),
      x(a.cpuRatioToResend),
      a.backend === 'memory' ? '(in gateway)' : fmt(a.storeUsPerReq, 0),
      pct(a.gatewayCore),
      pct(a.otherCore),
      a.errors,
    ]),
  );
  return out;
}
