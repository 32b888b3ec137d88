// A paired run: one load spread round-robin over several gateways at once (same workers, same
// CPU core, same moment), each gateway's CPU read at the window's edges. Every gateway gets the
// same share of requests under the same machine load, so CPU per request compares fairly even
// on a shared, noisy machine, where back-to-back runs swing by ±40 % with other users' work.
// Throughput is equal by construction here; capacity is what the runs of one gateway alone show.
import { runLoad, summarize, type LoadSummary } from '../lib/loadgen.js';
import { groupCpuSeconds, waitForQuiet } from '../lib/proc.js';
import type { PathUnderTest, Workload } from './workloads.js';

export interface PairedRecord {
  rep: number;
  workload: string;
  path: string;
  windowMs: number;
  /** This gateway's requests only (its origin's samples). */
  summary: LoadSummary;
  proxyCpuSeconds: number;
}

/** One run of `w` over every path in `paths` together (each path has one origin and a proc). */
export async function measurePaired(
  paths: readonly PathUnderTest[],
  w: Workload,
  rep: number,
  seconds: number,
  ours: ReadonlySet<number>,
  warmupMs = 1000,
): Promise<PairedRecord[]> {
  const origins = paths.map((p) => p.origins[0] ?? '');
  const cpu = (): number[] => paths.map((p) => (p.proc ? groupCpuSeconds(p.proc.pid) : 0));
  let c0: number[] = [];
  let c1: number[] = [];
  if (seconds >= 1) await waitForQuiet(ours, 0.2, 3000);
  const r = await runLoad({
    origins,
    request: w.requestAt ?? (() => w.request),
    ...(w.closed ? { closed: w.closed } : {}),
    ...(w.open ? { open: { ...w.open, seed: 7, maxInFlight: 512 } } : {}),
    warmupMs,
    durationMs: seconds * 1000,
    onWindowStart: () => (c0 = cpu()),
    onWindowEnd: () => (c1 = cpu()),
  });
  return paths.map((p, i) => ({
    rep,
    workload: w.name,
    path: p.name,
    windowMs: r.windowMs,
    summary: summarize(
      r,
      r.samples.filter((s) => s.origin === origins[i]),
    ),
    proxyCpuSeconds: (c1[i] ?? 0) - (c0[i] ?? 0),
  }));
}
