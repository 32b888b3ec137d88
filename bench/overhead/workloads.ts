// Workloads and the measurement of one run, shared by the overhead benchmark and its profile.
import { runLoad, summarize, type LoadSummary, type RequestSpec } from '../lib/loadgen.js';
import {
  cpuSnapshot,
  foreignCpuSeconds,
  groupCpuSeconds,
  waitForQuiet,
  type CpuSnapshot,
  type Managed,
} from '../lib/proc.js';
import type { RunRecord } from './report.js';

export const STREAM_TOKENS = 200;

export interface Workload {
  name: string;
  title: string;
  stream: boolean;
  closed?: { concurrency: number };
  open?: { ratePerSec: number };
  request: RequestSpec;
  /** Per-request variant (e.g. a routing-key header that differs per request); else `request`. */
  requestAt?: (index: number) => RequestSpec;
}

const prompt = 'Say hello to the benchmark harness.';
export const WORKLOADS: Workload[] = [
  {
    name: 'small',
    title: 'small non-streamed completions, closed loop, 32 clients',
    stream: false,
    closed: { concurrency: 32 },
    request: {
      path: '/v1/completions',
      body: JSON.stringify({ model: 'sim-model', prompt, max_tokens: 1 }),
    },
  },
  {
    name: 'small-open',
    title: 'small non-streamed completions, open loop (Poisson) at 800 req/s',
    stream: false,
    open: { ratePerSec: 800 },
    request: {
      path: '/v1/completions',
      body: JSON.stringify({ model: 'sim-model', prompt, max_tokens: 1 }),
    },
  },
  {
    name: 'stream',
    title: `streamed completions of ${STREAM_TOKENS} tokens, closed loop, 32 clients`,
    stream: true,
    closed: { concurrency: 32 },
    request: {
      path: '/v1/completions',
      body: JSON.stringify({ model: 'sim-model', prompt, max_tokens: STREAM_TOKENS, stream: true }),
    },
  },
];

/** The workload the PD path runs (small non-streamed completions, closed loop). */
export const PD_WORKLOAD = 'small';

export interface PathUnderTest {
  name: string;
  origins: string[];
  /** Process group whose CPU is the hop's cost; undefined for direct. */
  proc?: Managed;
  /** The simulator this path reaches, when not the shared fleet passed to `measure`. */
  sim?: Managed;
  /** Workloads this path runs (default all). */
  workloads?: readonly string[];
}

// Total time runs may wait for other users' load to pass, so the benchmark stays within 5 min.
let quietBudgetMs = 45_000;

/** One measured run; CPU of the proxy and of the simulator read at the window's edges. */
export async function measure(
  path: PathUnderTest,
  w: Workload,
  sim: Managed,
  ours: ReadonlySet<number>,
  seconds: number,
  warmupMs = 1000,
  waitQuiet = true,
): Promise<Omit<RunRecord, 'rep'>> {
  let p0 = 0;
  let p1 = 0;
  let s0 = 0;
  let s1 = 0;
  let m0: CpuSnapshot = new Map();
  let m1 = m0;
  const proxyCpu = (): number => (path.proc ? groupCpuSeconds(path.proc.pid) : 0);
  const simProc = path.sim ?? sim;
  if (seconds >= 1 && waitQuiet && quietBudgetMs > 0) {
    const t = performance.now();
    await waitForQuiet(ours, 0.2, Math.min(3000, quietBudgetMs));
    quietBudgetMs -= performance.now() - t;
  }
  const r = await runLoad({
    origins: path.origins,
    request: w.requestAt ?? (() => w.request),
    ...(w.closed ? { closed: w.closed } : {}),
    ...(w.open ? { open: { ...w.open, seed: 7, maxInFlight: 512 } } : {}),
    warmupMs,
    durationMs: seconds * 1000,
    onWindowStart: () => {
      p0 = proxyCpu();
      s0 = groupCpuSeconds(simProc.pid);
      m0 = cpuSnapshot();
    },
    onWindowEnd: () => {
      p1 = proxyCpu();
      s1 = groupCpuSeconds(simProc.pid);
      m1 = cpuSnapshot();
    },
  });
  const summary: LoadSummary = summarize(r);
  // Whatever else ran on the machine meanwhile (other users' tests): CPU that none of our
  // processes used. A run with a lot of it is a run to distrust.
  const otherCpuSeconds = foreignCpuSeconds(m0, m1, ours);
  return {
    workload: w.name,
    path: path.name,
    windowMs: r.windowMs,
    summary,
    proxyCpuSeconds: p1 - p0,
    simCpuSeconds: s1 - s0,
    otherCpuSeconds,
  };
}
