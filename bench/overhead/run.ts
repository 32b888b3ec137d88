// Overhead benchmark: what a hop through Switchyard costs next to nginx and haproxy, on the same
// canned simulator fleet, in the same run. Paths: direct (client -> workers), switchyard (the
// built CLI as a child), nginx, haproxy. Workloads: small non-streamed completions (closed loop,
// and open loop below saturation for latency without queueing) and 200-token streams.
//
// Pinning (when taskset exists): the proxy under test gets CPU 0 to itself; the load generator
// (this process) and the simulator share CPU 1. Proxy CPU per request is therefore clean, while
// req/s is bounded by CPU 1 for the light proxies: read the core-use columns before reading req/s.
// Runs are interleaved (rep -> workload -> path, path order rotated per rep) and medians of the
// reps are reported, since the machine is shared and noisy.
//
//   node --import tsx bench/overhead/run.ts            (~4 min; writes bench/results/overhead.json)
//   OVERHEAD_REPS=1 OVERHEAD_SECONDS=2 ...             (quick look)
//   node --import tsx bench/overhead/run.ts --profile  (Switchyard only, under node --cpu-prof)
//   node --import tsx bench/overhead/run.ts --tracing  (Switchyard untraced vs --enable-trace)
//   ... --tracing --baseline-bin <other tree>/bin/switchyard.js   (and that build, untraced)
//   ... --profile --tracing                             (the traced gateway under node --cpu-prof)
//   OVERHEAD_WORKERS=1000 ... --profile               (the same behind a 1,000-worker fleet)
import { mkdirSync, rmSync } from 'node:fs';
import { freePort, ownProcessGroup, pinSelf, type Managed } from '../lib/proc.js';
import { ROOT, writeResult } from '../lib/results.js';
import {
  ensureBuilt,
  pdGatewayFlags,
  startGateway,
  startPdSimPair,
  startSimFleet,
} from '../lib/services.js';
import { profileGateway } from './profile.js';
import { runTracingComparison, startSink } from './tracing.js';
import { ensureProxies, startHaproxy, startNginx } from './proxies.js';
import { report, type RunRecord } from './report.js';
import { measure, PD_WORKLOAD, WORKLOADS, type PathUnderTest, type Workload } from './workloads.js';

const REPS = Number(process.env['OVERHEAD_REPS'] ?? 3);
const SECONDS = Number(process.env['OVERHEAD_SECONDS'] ?? 3);
// More workers (OVERHEAD_WORKERS=1000 with --profile) show where a big fleet's extra cost goes.
const WORKERS = Number(process.env['OVERHEAD_WORKERS'] ?? 4);

async function main(): Promise<void> {
  const profile = process.argv.includes('--profile');
  const tracing = process.argv.includes('--tracing');
  const baselineAt = process.argv.indexOf('--baseline-bin');
  const baselineBin = baselineAt > 0 ? process.argv[baselineAt + 1] : undefined;
  const pinned = pinSelf('1');
  const cpuProxy = pinned ? '0' : undefined;
  const cpuSim = pinned ? '1' : undefined;
  const started = performance.now();
  ensureBuilt();
  const dir = `${ROOT}.tmp/bench-overhead-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  const procs: Managed[] = [];
  try {
    // Canned workers: first token at once, then one token per millisecond (each on its own timer
    // tick, so each its own SSE write), so a 200-token stream lasts ~0.2-0.3 s; no queueing.
    const fleet = await startSimFleet(
      WORKERS,
      ['--engine', 'canned', '--ttft-ms', '0', '--itl-ms', '1', '--seed', '1'],
      cpuSim,
    );
    procs.push(fleet.proc);
    // The same canned timing as a PD pair (SGLang protocol: the gateway sends each request to
    // the prefill and the decode at once, with the prefill's bootstrap address in both bodies).
    const pdFleet = await startPdSimPair(
      dir,
      { engine: 'canned', ttftMs: 0, itlMs: 1, seed: 1 },
      cpuSim,
    );
    procs.push(pdFleet.proc);
    if (profile && tracing) {
      // The traced gateway under the profiler, exporting to the same sink as --tracing uses.
      const sink = await startSink(cpuSim);
      procs.push(sink.proc);
      const flags = ['--enable-trace', '--otlp-traces-endpoint', sink.url];
      await profileGateway(fleet, pdFleet, dir, cpuProxy, flags, 'profile-traced');
      return;
    }
    if (profile) {
      await profileGateway(fleet, pdFleet, dir, cpuProxy);
      return;
    }
    if (tracing) {
      await runTracingComparison({
        fleet,
        pdWorkers: pdFleet.workers,
        pdSim: pdFleet.proc,
        reps: REPS,
        seconds: SECONDS,
        cpuProxy,
        cpuSim,
        procs,
        baselineBin,
        baselineTraced: process.argv.includes('--baseline-traced'),
      });
      return;
    }
    const tools = ensureProxies();
    const gw = await startGateway({
      workerUrls: fleet.urls,
      policy: 'round_robin',
      cpus: cpuProxy,
    });
    procs.push(gw.proc);
    const pd = await startGateway({
      workerUrls: [],
      policy: 'round_robin',
      cpus: cpuProxy,
      extraFlags: pdGatewayFlags(pdFleet.workers),
      expectWorkers: pdFleet.workers.length,
    });
    procs.push(pd.proc);
    const [nginxPort, haproxyPort] = [await freePort(), await freePort()];
    const nginx = startNginx(tools.nginx, dir, nginxPort, fleet.urls, cpuProxy);
    const haproxy = startHaproxy(tools.haproxy, dir, haproxyPort, fleet.urls, cpuProxy);
    procs.push(nginx, haproxy);
    await new Promise((r) => setTimeout(r, 500));
    for (const p of [nginx, haproxy])
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited:\n${p.output.join('\n')}`);

    const paths: PathUnderTest[] = [
      { name: 'direct', origins: fleet.urls },
      { name: 'switchyard', origins: [gw.url], proc: gw.proc },
      { name: 'nginx', origins: [`http://127.0.0.1:${nginxPort}`], proc: nginx },
      { name: 'haproxy', origins: [`http://127.0.0.1:${haproxyPort}`], proc: haproxy },
      {
        name: 'switchyard-pd',
        origins: [pd.url],
        proc: pd.proc,
        sim: pdFleet.proc,
        workloads: [PD_WORKLOAD],
      },
    ];
    const runsOn = (p: PathUnderTest, w: Workload): boolean =>
      p.workloads === undefined || p.workloads.includes(w.name);
    // Process groups that are ours; everything else on the machine is "other load".
    const ours = new Set([ownProcessGroup(), ...procs.map((p) => p.pid)]);
    // One unrecorded pass over every path and workload: JIT warm-up for Node, pools filled.
    for (const p of paths)
      for (const w of WORKLOADS.filter((x) => runsOn(p, x)))
        await measure(p, w, fleet.proc, ours, 0.5, 500);

    const runs: RunRecord[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      for (const w of WORKLOADS) {
        // Rotate the order each rep so no path always runs first (or right after a heavy one).
        const order = paths
          .map((_, i) => paths[(i + rep) % paths.length] as PathUnderTest)
          .filter((p) => runsOn(p, w));
        for (const p of order) {
          const rec = await measure(p, w, fleet.proc, ours, SECONDS);
          runs.push({ rep, ...rec });
          const s = rec.summary;
          const other = (rec.otherCpuSeconds * 1000) / rec.windowMs;
          console.log(
            `rep ${rep + 1}/${REPS} ${w.name.padEnd(10)} ${p.name.padEnd(13)} ${s.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${s.latency.p50.toFixed(2)} ms  errors ${s.errors}  other load ${(other * 100).toFixed(0)}%`,
          );
        }
      }
    }
    const out = report(runs, WORKLOADS);
    const path = writeResult('overhead', {
      reps: REPS,
      seconds: SECONDS,
      workers: WORKERS,
      pdWorkers: pdFleet.workers.map((w) => w.role),
      pinned,
      tools: { nginx: tools.nginx.version, haproxy: tools.haproxy.version },
      elapsedSeconds: Math.round((performance.now() - started) / 1000),
      ...out,
      runs,
    });
    console.log(`\nwrote ${path} (${Math.round((performance.now() - started) / 1000)} s)`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
