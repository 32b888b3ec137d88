// What --enable-trace costs: the same gateway built twice in one run, untraced and traced, on
// the same canned fleet, the traced one exporting every span over OTLP/HTTP to a local sink that
// reads and discards them (a child process beside the simulator, so its CPU is not the
// gateway's). Regular small requests and streams, and PD small requests (four spans each). Runs
// are interleaved as in the main benchmark and medians reported, with traced ÷ untraced ratios.
//
//   node --import tsx bench/overhead/run.ts --tracing      (OVERHEAD_REPS, OVERHEAD_SECONDS apply)
//
// Untraced is the code path of a gateway built before tracing existed: without the flag the SDK
// is never loaded and each traced step is one branch on an undefined span.
import { freePort, ownProcessGroup, startProcess, waitForHttp, type Managed } from '../lib/proc.js';
import { median, round } from '../lib/stats.js';
import { writeResult } from '../lib/results.js';
import {
  pdGatewayFlags,
  startGateway,
  type SimFleetProcess,
  type SimWorkerInfo,
} from '../lib/services.js';
import { fmt, printTable, ratio } from '../lib/table.js';
import type { RunRecord } from './report.js';
import { measure, PD_WORKLOAD, WORKLOADS, type PathUnderTest } from './workloads.js';

/** A sink for OTLP/HTTP exports: reads each body, answers `{}`, counts; GET /stats reports. */
const SINK_SOURCE = `
const { createServer } = require('node:http');
let posts = 0, bytes = 0;
createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify({ posts, bytes }));
  req.on('data', (c) => (bytes += c.length));
  req.on('end', () => { posts++; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
}).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('sink ready'));
`;

interface TracingOptions {
  fleet: SimFleetProcess;
  pdWorkers: readonly SimWorkerInfo[];
  pdSim: Managed;
  reps: number;
  seconds: number;
  cpuProxy: string | undefined;
  cpuSim: string | undefined;
  procs: Managed[];
}

/** The OTLP sink as a child process on `cpus`; its URL for `--otlp-traces-endpoint`. */
export async function startSink(cpus: string | undefined): Promise<{ url: string; proc: Managed }> {
  const port = await freePort();
  const proc = startProcess('otlp-sink', process.execPath, ['-e', SINK_SOURCE, String(port)], {
    cpus,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, (status) => status === 200, 10_000);
  return { url, proc };
}

async function sinkStats(url: string): Promise<{ posts: number; bytes: number }> {
  return (await (await fetch(url)).json()) as { posts: number; bytes: number };
}

export async function runTracingComparison(o: TracingOptions): Promise<void> {
  const sink = await startSink(o.cpuSim);
  o.procs.push(sink.proc);
  const traced = ['--enable-trace', '--otlp-traces-endpoint', sink.url];
  const regular = { workerUrls: o.fleet.urls, policy: 'round_robin', cpus: o.cpuProxy };
  const pd = {
    workerUrls: [],
    policy: 'round_robin',
    cpus: o.cpuProxy,
    expectWorkers: o.pdWorkers.length,
  };
  const gateways = await Promise.all([
    startGateway(regular),
    startGateway({ ...regular, extraFlags: traced }),
    startGateway({ ...pd, extraFlags: pdGatewayFlags(o.pdWorkers) }),
    startGateway({ ...pd, extraFlags: [...pdGatewayFlags(o.pdWorkers), ...traced] }),
  ]);
  o.procs.push(...gateways.map((g) => g.proc));
  const [off, on, pdOff, pdOn] = gateways;
  const pdOnly = { sim: o.pdSim, workloads: [PD_WORKLOAD] };
  const paths: PathUnderTest[] = [
    { name: 'untraced', origins: [off.url], proc: off.proc },
    { name: 'traced', origins: [on.url], proc: on.proc },
    { name: 'pd-untraced', origins: [pdOff.url], proc: pdOff.proc, ...pdOnly },
    { name: 'pd-traced', origins: [pdOn.url], proc: pdOn.proc, ...pdOnly },
  ];
  const workloads = WORKLOADS.filter((w) => w.name !== 'small-open');
  const runsOn = (p: PathUnderTest, name: string): boolean =>
    p.workloads === undefined || p.workloads.includes(name);
  const ours = new Set([ownProcessGroup(), ...o.procs.map((p) => p.pid)]);
  for (const p of paths)
    for (const w of workloads.filter((x) => runsOn(p, x.name)))
      await measure(p, w, o.fleet.proc, ours, 0.5, 500);
  const before = await sinkStats(sink.url);

  const runs: RunRecord[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    for (const w of workloads) {
      const order = paths
        .map((_, i) => paths[(i + rep) % paths.length] as PathUnderTest)
        .filter((p) => runsOn(p, w.name));
      for (const p of order) {
        const rec = await measure(p, w, o.fleet.proc, ours, o.seconds);
        runs.push({ rep, ...rec });
        const s = rec.summary;
        console.log(
          `rep ${rep + 1}/${o.reps} ${w.name.padEnd(7)} ${p.name.padEnd(12)} ${s.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${s.latency.p50.toFixed(2)} ms  p99 ${s.latency.p99.toFixed(2)} ms  errors ${s.errors}`,
        );
      }
    }
  }
  const exported = await sinkStats(sink.url);
  const rows = tracingRows(runs, workloads);
  printTable(
    `Tracing off vs on (medians of ${o.reps}; traced ÷ untraced: higher req/s is better, lower is better for the rest)`,
    [
      'workload',
      'untraced req/s',
      'traced req/s',
      'req/s',
      'p50',
      'p99',
      'untraced µs/req',
      'traced µs/req',
      'CPU/req',
    ],
    rows.map((r) => [
      r.workload,
      fmt(r.off.reqPerSec, 0),
      fmt(r.on.reqPerSec, 0),
      ratio(r.on.reqPerSec, r.off.reqPerSec),
      ratio(r.on.p50, r.off.p50),
      ratio(r.on.p99, r.off.p99),
      fmt(r.off.cpuUs, 0),
      fmt(r.on.cpuUs, 0),
      ratio(r.on.cpuUs, r.off.cpuUs),
    ]),
  );
  const sent = { posts: exported.posts - before.posts, bytes: exported.bytes - before.bytes };
  console.log(
    `\nthe sink received ${sent.posts} exports, ${(sent.bytes / 1e6).toFixed(1)} MB, during the measured runs`,
  );
  const path = writeResult('overhead-tracing', {
    reps: o.reps,
    seconds: o.seconds,
    exported: sent,
    ratios: Object.fromEntries(
      rows.map((r) => [
        r.workload,
        {
          reqPerSec: round(r.on.reqPerSec / r.off.reqPerSec, 3),
          p50: round(r.on.p50 / r.off.p50, 3),
          p99: round(r.on.p99 / r.off.p99, 3),
          cpuPerRequest: round(r.on.cpuUs / r.off.cpuUs, 3),
        },
      ]),
    ),
    rows,
    runs,
  });
  console.log(`wrote ${path}`);
}

interface Medians {
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuUs: number;
}

function medians(runs: readonly RunRecord[]): Medians {
  const m = (f: (r: RunRecord) => number): number => median(runs.map(f));
  return {
    reqPerSec: m((r) => r.summary.reqPerSec),
    p50: m((r) => r.summary.latency.p50),
    p99: m((r) => r.summary.latency.p99),
    cpuUs: m((r) => (r.proxyCpuSeconds * 1e6) / Math.max(1, r.summary.requests)),
  };
}

/** One row per workload and mode: the untraced and traced medians side by side. */
function tracingRows(
  runs: readonly RunRecord[],
  workloads: readonly { name: string }[],
): { workload: string; off: Medians; on: Medians }[] {
  const of = (w: string, p: string): RunRecord[] =>
    runs.filter((r) => r.workload === w && r.path === p);
  const rows: { workload: string; off: Medians; on: Medians }[] = [];
  for (const w of workloads) {
    rows.push({
      workload: w.name,
      off: medians(of(w.name, 'untraced')),
      on: medians(of(w.name, 'traced')),
    });
    if (w.name === PD_WORKLOAD)
      rows.push({
        workload: `pd-${w.name}`,
        off: medians(of(w.name, 'pd-untraced')),
        on: medians(of(w.name, 'pd-traced')),
      });
  }
  return rows;
}
