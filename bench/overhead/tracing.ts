// What --enable-trace costs: the same gateway untraced, traced over OTLP/HTTP (a URL endpoint)
// and traced over OTLP/gRPC (SMG's host:port form), each exporting every span to a local sink (a
// child process beside the simulator, so its CPU is not the gateway's), on the same canned fleet,
// in one run. With `--baseline-bin <path to another build's bin/switchyard.js>` (say, the commit
// before tracing existed) that build joins as `before`, untraced, to compare "off" with "never";
// `--baseline-traced` adds it traced too (`before-traced`, `before-traced-grpc`), to compare two
// builds' tracing.
// Regular small requests and streams, and PD small requests (four spans each).
//
// Two kinds of run per rep and workload: each gateway alone (interleaved and rotated as in the
// main benchmark; req/s and latency), then all of them together in a paired run (paired.ts; CPU
// per request under identical load, the figure that survives a noisy machine). Medians of reps.
//
//   node --import tsx bench/overhead/run.ts --tracing [--baseline-bin ../pretrace/bin/switchyard.js
//                                                      [--baseline-traced]]
import { freePort, ownProcessGroup, startProcess, waitForHttp, type Managed } from '../lib/proc.js';
import { ROOT, writeResult } from '../lib/results.js';
import { median, round } from '../lib/stats.js';
import {
  pdGatewayFlags,
  startGateway,
  type SimFleetProcess,
  type SimWorkerInfo,
} from '../lib/services.js';
import { fmt, printTable, ratio } from '../lib/table.js';
import { measurePaired, type PairedRecord } from './paired.js';
import type { RunRecord } from './report.js';
import { measure, PD_WORKLOAD, WORKLOADS, type PathUnderTest } from './workloads.js';

/** A sink for OTLP/HTTP exports: reads each body, answers `{}`, counts; GET /stats reports. */
const HTTP_SINK = `
const { createServer } = require('node:http');
let posts = 0, bytes = 0;
createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify({ posts, bytes }));
  req.on('data', (c) => (bytes += c.length));
  req.on('end', () => { posts++; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
}).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('sink ready'));
`;

/** A sink for OTLP/gRPC exports: TraceService/Export as raw bytes, answered empty. */
const GRPC_SINK = `
const grpc = require('@grpc/grpc-js');
const id = (b) => b;
const server = new grpc.Server();
server.addService(
  { Export: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export', requestStream: false,
      responseStream: false, requestSerialize: id, requestDeserialize: id, responseSerialize: id, responseDeserialize: id } },
  { Export: (call, done) => done(null, Buffer.alloc(0)) },
);
server.bindAsync('127.0.0.1:' + process.argv[1], grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) throw err;
  console.log('sink ready');
});
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
  /** Another build's bin/switchyard.js, run untraced as `before`. */
  baselineBin?: string | undefined;
  /** Run the baseline build traced too (it must support --enable-trace, and host:port as gRPC). */
  baselineTraced?: boolean;
}

/** The OTLP/HTTP sink as a child process on `cpus`; its URL for `--otlp-traces-endpoint`. */
export async function startSink(cpus: string | undefined): Promise<{ url: string; proc: Managed }> {
  const port = await freePort();
  const proc = startProcess('otlp-sink', process.execPath, ['-e', HTTP_SINK, String(port)], {
    cpus,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, (status) => status === 200, 10_000);
  return { url, proc };
}

async function sinkStats(url: string): Promise<{ posts: number; bytes: number }> {
  return (await (await fetch(url)).json()) as { posts: number; bytes: number };
}

/** The OTLP/gRPC sink; its `host:port`, SMG's form of `--otlp-traces-endpoint`. */
async function startGrpcSink(
  cpus: string | undefined,
): Promise<{ address: string; proc: Managed }> {
  const port = await freePort();
  const proc = startProcess('otlp-grpc-sink', process.execPath, ['-e', GRPC_SINK, String(port)], {
    cpus,
    cwd: ROOT,
  });
  await proc.waitForLine(/sink ready/);
  return { address: `127.0.0.1:${port}`, proc };
}

interface Variant {
  name: string;
  flags: readonly string[];
  bin?: string | undefined;
}

export async function runTracingComparison(o: TracingOptions): Promise<void> {
  const [sink, grpcSink] = await Promise.all([startSink(o.cpuSim), startGrpcSink(o.cpuSim)]);
  o.procs.push(sink.proc, grpcSink.proc);
  const http = ['--enable-trace', '--otlp-traces-endpoint', sink.url];
  const grpc = ['--enable-trace', '--otlp-traces-endpoint', grpcSink.address];
  const bin = o.baselineBin;
  const variants: Variant[] = [
    ...(bin !== undefined ? [{ name: 'before', flags: [], bin }] : []),
    ...(bin !== undefined && o.baselineTraced === true
      ? [
          { name: 'before-traced', flags: http, bin },
          { name: 'before-traced-grpc', flags: grpc, bin },
        ]
      : []),
    { name: 'untraced', flags: [] },
    { name: 'traced', flags: http },
    { name: 'traced-grpc', flags: grpc },
  ];
  const pdFlags = pdGatewayFlags(o.pdWorkers);
  const regular = variants.map((v) =>
    startGateway({
      workerUrls: o.fleet.urls,
      policy: 'round_robin',
      cpus: o.cpuProxy,
      extraFlags: v.flags,
      bin: v.bin,
    }),
  );
  const pd = variants.map((v) =>
    startGateway({
      workerUrls: [],
      policy: 'round_robin',
      cpus: o.cpuProxy,
      expectWorkers: o.pdWorkers.length,
      extraFlags: [...pdFlags, ...v.flags],
      bin: v.bin,
    }),
  );
  const [regularGw, pdGw] = await Promise.all([Promise.all(regular), Promise.all(pd)]);
  o.procs.push(...regularGw.map((g) => g.proc), ...pdGw.map((g) => g.proc));
  const pdOnly = { sim: o.pdSim, workloads: [PD_WORKLOAD] };
  const regularPaths: PathUnderTest[] = variants.map((v, i) => {
    const g = regularGw[i] as (typeof regularGw)[0];
    return { name: v.name, origins: [g.url], proc: g.proc };
  });
  const pdPaths: PathUnderTest[] = variants.map((v, i) => {
    const g = pdGw[i] as (typeof pdGw)[0];
    return { name: `pd-${v.name}`, origins: [g.url], proc: g.proc, ...pdOnly };
  });
  const workloads = WORKLOADS.filter((w) => w.name !== 'small-open');
  // One group of paths per row of the report: the regular gateways per workload, then PD small.
  const groups = [
    ...workloads.map((w) => ({ row: w.name, w, paths: regularPaths })),
    ...workloads
      .filter((w) => w.name === PD_WORKLOAD)
      .map((w) => ({ row: `pd-${w.name}`, w, paths: pdPaths })),
  ];
  const ours = new Set([ownProcessGroup(), ...o.procs.map((p) => p.pid)]);
  for (const g of groups)
    for (const p of g.paths) await measure(p, g.w, p.sim ?? o.fleet.proc, ours, 0.5, 500);

  const alone: RunRecord[] = [];
  const paired: PairedRecord[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    for (const g of groups) {
      const order = g.paths.map((_, i) => g.paths[(i + rep) % g.paths.length] as PathUnderTest);
      for (const p of order) {
        const rec = await measure(p, g.w, p.sim ?? o.fleet.proc, ours, o.seconds);
        alone.push({ rep, ...rec, workload: g.row });
        const s = rec.summary;
        console.log(
          `rep ${rep + 1}/${o.reps} ${g.row.padEnd(8)} ${p.name.padEnd(22)} ${s.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${s.latency.p50.toFixed(2)} ms  ${fmt((rec.proxyCpuSeconds * 1e6) / Math.max(1, s.requests), 0)} µs/req  other load ${fmt((rec.otherCpuSeconds * 100_000) / rec.windowMs, 0)}%`,
        );
      }
      const together = await measurePaired(g.paths, g.w, rep, o.seconds, ours);
      for (const rec of together) paired.push({ ...rec, workload: g.row });
      console.log(
        `rep ${rep + 1}/${o.reps} ${g.row.padEnd(8)} paired                 ${together.map((r) => `${r.path} ${fmt((r.proxyCpuSeconds * 1e6) / Math.max(1, r.summary.requests), 0)}`).join(', ')} µs/req`,
      );
    }
  }
  function row(workload: string, variant: string, path: string): Row {
    const a = alone.filter((r) => r.workload === workload && r.path === path);
    const p = paired.filter((r) => r.workload === workload && r.path === path);
    const cpu = (r: { proxyCpuSeconds: number; summary: { requests: number } }): number =>
      (r.proxyCpuSeconds * 1e6) / Math.max(1, r.summary.requests);
    return {
      workload,
      variant,
      reqPerSec: median(a.map((r) => r.summary.reqPerSec)),
      p50: median(a.map((r) => r.summary.latency.p50)),
      p99: median(a.map((r) => r.summary.latency.p99)),
      cpuAlone: median(a.map(cpu)),
      cpuPaired: median(p.map(cpu)),
      cpuPairedByRep: p.map(cpu),
    };
  }
  const rows = groups.flatMap((g) =>
    variants.map((v) => row(g.row, v.name, g.paths === pdPaths ? `pd-${v.name}` : v.name)),
  );
  const exported = await sinkStats(sink.url);
  console.log(
    `\nthe OTLP/HTTP sink received ${exported.posts} exports, ${fmt(exported.bytes / 1e6, 1)} MB`,
  );
  printComparison(rows, 'untraced', ['traced', 'traced-grpc'], o.reps);
  if (bin !== undefined) printComparison(rows, 'before', ['untraced'], o.reps);
  if (bin !== undefined && o.baselineTraced === true) {
    printComparison(rows, 'before-traced', ['traced'], o.reps);
    printComparison(rows, 'before-traced-grpc', ['traced-grpc'], o.reps);
  }
  const path = writeResult('overhead-tracing', {
    reps: o.reps,
    seconds: o.seconds,
    baselineBin: bin ?? null,
    baselineTraced: o.baselineTraced === true,
    rows,
    alone,
    paired,
  });
  console.log(`wrote ${path}`);
}

interface Row {
  workload: string;
  variant: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** Gateway CPU µs per request, measured alone and in the paired runs. */
  cpuAlone: number;
  cpuPaired: number;
  /** Paired CPU µs per request of each rep, in rep order (for per-rep differences). */
  cpuPairedByRep: number[];
}

/**
 * Medians over reps of the paired runs' per-rep difference and ratio, `v` against `ref`: each
 * rep's pair shared the same moment, so its difference cancels what the machine did meanwhile.
 */
function pairedDelta(v: Row, ref: Row): { delta: number; ratio: number } {
  const reps = v.cpuPairedByRep.map((x, i) => [x, ref.cpuPairedByRep[i] ?? NaN] as const);
  return {
    delta: median(reps.map(([x, r]) => x - r)),
    ratio: median(reps.map(([x, r]) => x / r)),
  };
}

/** Each of `variants` against `reference`, per workload: ratios are variant ÷ reference. */
function printComparison(
  rows: readonly Row[],
  reference: string,
  variants: readonly string[],
  reps: number,
): void {
  const out: (string | number)[][] = [];
  for (const ref of rows.filter((r) => r.variant === reference))
    for (const v of rows.filter(
      (r) => r.workload === ref.workload && variants.includes(r.variant),
    )) {
      const paired = pairedDelta(v, ref);
      out.push([
        ref.workload,
        v.variant,
        `${fmt(ref.reqPerSec, 0)} → ${fmt(v.reqPerSec, 0)}`,
        ratio(v.reqPerSec, ref.reqPerSec),
        ratio(v.p50, ref.p50),
        ratio(v.p99, ref.p99),
        `${fmt(ref.cpuAlone, 0)} → ${fmt(v.cpuAlone, 0)}`,
        ratio(v.cpuAlone, ref.cpuAlone),
        `${fmt(ref.cpuPaired, 0)} → ${fmt(v.cpuPaired, 0)}`,
        `${fmt(paired.ratio, 2)}×`,
        round(paired.delta, 0),
      ]);
    }
  printTable(
    `${variants.join(', ')} vs ${reference} (medians of ${reps}; ratios are ÷ ${reference}; the paired ratio and Δ are medians of per-rep ones)`,
    [
      'workload',
      'variant',
      'req/s alone',
      'req/s',
      'p50',
      'p99',
      'µs/req alone',
      'CPU/req',
      'µs/req paired',
      'CPU/req paired',
      'Δ µs paired',
    ],
    out,
  );
}
