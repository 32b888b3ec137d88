// Where the gateway's CPU goes per request: the Switchyard path of the overhead benchmark run
// under `node --cpu-prof`, one gateway process per workload (and one in PD mode for `pd-small`),
// and the profile's samples summed by function (self time) and by category. Only samples inside the measurement window count: the
// client records CLOCK_MONOTONIC (process.hrtime) at the window's edges, which is the clock V8
// stamps its profile with on Linux, so startup, warm-up and shutdown are left out.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { runLoad, summarize } from '../lib/loadgen.js';
import { groupCpuSeconds } from '../lib/proc.js';
import { RESULTS_DIR, writeResult } from '../lib/results.js';
import {
  pdGatewayFlags,
  startGateway,
  type GatewayStart,
  type SimFleetProcess,
} from '../lib/services.js';
import { fmt, printTable } from '../lib/table.js';
import { PD_WORKLOAD, WORKLOADS, type Workload } from './workloads.js';

const SECONDS = Number(process.env['PROFILE_SECONDS'] ?? 6);

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SOCKET_NATIVE = new Set([
  'writev',
  'writeBuffer',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
  'shutdown',
  'readStart',
  'readStop',
]);

/** Coarse owner of a function, from its script URL (dist/ is our code) and name. */
export function category(url: string, fn: string): string {
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8/native outside JS';
  if (url === '' && SOCKET_NATIVE.has(fn)) return 'socket I/O (syscalls, node:net)';
  if (url === '' && (fn === 'parse' || fn === 'stringify')) return 'JSON';
  if (url === '' && fn === 'runMicrotasks') return 'nextTick / microtasks';
  // undici parses HTTP/1.1 responses with llhttp compiled to WebAssembly.
  if (url.startsWith('wasm://')) return 'undici (upstream client)';
  if (url.includes('node_modules/undici/')) return 'undici (upstream client)';
  if (url.includes('node_modules/prom-client/')) return 'metrics (prom-client)';
  if (url.includes('node_modules/pino')) return 'logging (pino)';
  if (url.includes('/dist/observability/metrics')) return 'metrics (ours)';
  if (url.includes('node_modules/@opentelemetry/')) return 'tracing (OpenTelemetry SDK)';
  if (url.includes('/dist/observability/otel-')) return 'tracing (ours)';
  if (url.includes('/dist/')) return 'Switchyard (ours)';
  if (/^node:(_http_|internal\/http|http)/.test(url)) return 'node:http (server, parsing)';
  if (/^node:(net|internal\/(net|stream_base_commons|tcp))/.test(url))
    return 'socket I/O (syscalls, node:net)';
  if (url.startsWith('node:internal/streams') || url === 'node:stream') return 'node streams';
  if (/^node:(internal\/)?timers/.test(url)) return 'timers';
  if (
    url === 'node:events' ||
    url.startsWith('node:internal/event_target') ||
    url.startsWith('node:internal/abort')
  )
    return 'events / AbortSignal';
  if (url.startsWith('node:internal/process/task_queues')) return 'nextTick / microtasks';
  if (url.startsWith('node:')) return 'node: other';
  return 'V8 builtins / native';
}

export interface FnCost {
  name: string;
  where: string;
  category: string;
  selfUs: number;
}

/**
 * Self time per function of the samples whose timestamp falls in [fromUs, toUs]; `categorize`
 * names each function's owner (bench/grpc adds the gRPC and tokenizer libraries).
 */
export function selfTimes(
  p: CpuProfile,
  fromUs: number,
  toUs: number,
  categorize: (url: string, fn: string) => string = category,
  maxDeltaUs = Infinity,
): FnCost[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const costs = new Map<string, FnCost>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t < fromUs || t > toUs) continue;
    const node = byId.get(p.samples[i] ?? -1);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const file = url.replace(/^.*\/(dist|node_modules)\//, '$1/');
    const where = url ? `${file}:${lineNumber + 1}` : '';
    const key = `${name}@${where}`;
    const c = costs.get(key) ?? { name, where, category: categorize(url, functionName), selfUs: 0 };
    // A sample's delta is the time since the previous one: charge it to this sample's function.
    // `maxDeltaUs` caps it: on a contended core the thread may wait 100 ms for the CPU, and
    // that wait would otherwise land on whichever function the next sample happens to catch.
    c.selfUs += Math.min(dt, maxDeltaUs);
    costs.set(key, c);
  }
  return [...costs.values()].sort((a, b) => b.selfUs - a.selfUs);
}

interface ProfileTarget {
  /** Profile name: the workload's, or `pd-small` for the small workload through the PD gateway. */
  name: string;
  w: Workload;
  gateway: Omit<GatewayStart, 'cpus' | 'cpuProfDir'>;
}

/**
 * `extraFlags` go to every gateway profiled (`--tracing`: `--enable-trace` and its endpoint);
 * `label` names the result files (`overhead-profile` by default).
 */
export async function profileGateway(
  fleet: SimFleetProcess,
  pdFleet: SimFleetProcess,
  dir: string,
  cpus: string | undefined,
  extraFlags: readonly string[] = [],
  label = 'profile',
): Promise<void> {
  const results: Record<string, unknown> = {};
  const regular = { workerUrls: fleet.urls, policy: 'round_robin', extraFlags };
  const targets: ProfileTarget[] = WORKLOADS.filter((x) => x.closed !== undefined).map((w) => ({
    name: w.name,
    w,
    gateway: regular,
  }));
  const pdWorkload = WORKLOADS.find((x) => x.name === PD_WORKLOAD);
  if (pdWorkload)
    targets.push({
      name: `pd-${PD_WORKLOAD}`,
      w: pdWorkload,
      gateway: {
        workerUrls: [],
        policy: 'round_robin',
        extraFlags: [...pdGatewayFlags(pdFleet.workers), ...extraFlags],
        expectWorkers: pdFleet.workers.length,
      },
    });
  for (const { name, w, gateway } of targets) {
    const profDir = `${dir}/prof-${name}`;
    mkdirSync(profDir, { recursive: true });
    const title = name === w.name ? w.title : `${w.title}, PD gateway (prefill + decode)`;
    const gw = await startGateway({ ...gateway, cpus, cpuProfDir: profDir });
    let from = 0n;
    let to = 0n;
    let c0 = 0;
    let c1 = 0;
    const r = await runLoad({
      origins: [gw.url],
      request: () => w.request,
      closed: w.closed,
      warmupMs: 1500,
      durationMs: SECONDS * 1000,
      onWindowStart: () => {
        from = process.hrtime.bigint();
        c0 = groupCpuSeconds(gw.proc.pid);
      },
      onWindowEnd: () => {
        to = process.hrtime.bigint();
        c1 = groupCpuSeconds(gw.proc.pid);
      },
    });
    await gw.proc.stop(10_000);
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined)
      throw new Error(`no .cpuprofile written in ${profDir}:\n${gw.proc.output.join('\n')}`);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const prefix = label === 'profile' ? 'overhead' : `overhead-${label}`;
    copyFileSync(`${profDir}/${file}`, `${RESULTS_DIR}${prefix}-${name}.cpuprofile`);
    const profile = JSON.parse(readFileSync(`${profDir}/${file}`, 'utf8')) as CpuProfile;
    const s = summarize(r);
    const fns = selfTimes(profile, Number(from / 1000n), Number(to / 1000n)).filter(
      (f) => f.category !== 'idle',
    );
    const busyUs = fns.reduce((n, f) => n + f.selfUs, 0);
    // Sampled time is the main thread's non-idle wall time: it also grows while the thread waits
    // for a core the OS gave to someone else. Shares are therefore taken from the profile and
    // scaled to the CPU time /proc charged the whole process, which is what one request costs.
    const procUsPerReq = ((c1 - c0) * 1e6) / Math.max(1, s.requests);
    const perReq = (us: number): number => (us / busyUs) * procUsPerReq;
    const cats = new Map<string, number>();
    for (const f of fns) cats.set(f.category, (cats.get(f.category) ?? 0) + f.selfUs);
    const catRows = [...cats.entries()].sort((a, b) => b[1] - a[1]);
    console.log(
      `\n${name}: ${s.requests} requests in ${fmt(r.windowMs / 1000, 1)} s (${fmt(s.reqPerSec, 0)} req/s); ` +
        `gateway CPU ${fmt(procUsPerReq, 0)} µs/request (/proc, all threads); main-thread samples ${fmt(busyUs / Math.max(1, s.requests), 0)} µs/request`,
    );
    printTable(
      `Gateway CPU by category, ${title}`,
      ['category', 'share', '≈ µs / request'],
      catRows.map(([c, us]) => [c, `${fmt((us / busyUs) * 100, 1)}%`, fmt(perReq(us), 1)]),
    );
    printTable(
      `Top self-time functions, ${title}`,
      ['function', 'where', 'category', 'share', '≈ µs / request'],
      fns
        .slice(0, 20)
        .map((f) => [
          f.name,
          f.where,
          f.category,
          `${fmt((f.selfUs / busyUs) * 100, 1)}%`,
          fmt(perReq(f.selfUs), 2),
        ]),
    );
    results[name] = {
      requests: s.requests,
      reqPerSec: s.reqPerSec,
      procCpuUsPerRequest: procUsPerReq,
      sampledUsPerRequest: busyUs / Math.max(1, s.requests),
      categories: Object.fromEntries(catRows.map(([c, us]) => [c, perReq(us)])),
      top: fns.slice(0, 40).map((f) => ({ ...f, usPerRequest: perReq(f.selfUs) })),
    };
  }
  console.log(`\nwrote ${writeResult(`overhead-${label}`, { seconds: SECONDS, results })}`);
}
