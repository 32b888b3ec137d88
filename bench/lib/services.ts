// The systems under test as child processes, started from the built CLI (bin/switchyard.js), so
// each has its own pid whose CPU can be read apart from the load generator's, and can be pinned
// to a core with taskset. Build once with `ensureBuilt()` before starting any of them.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { freePort, startProcess, waitForHttp, type Managed } from './proc.js';
import { ROOT } from './results.js';

const CLI = `${ROOT}bin/switchyard.js`;

/**
 * Compiles src/ into dist/ (what bin/switchyard.js runs). Other engineers edit src/ while these
 * benchmarks run; if the tree does not compile right now, an existing dist/ is used and said so.
 */
export function ensureBuilt(): void {
  // run-all builds once and tells the benchmarks it starts not to rebuild.
  if (process.env['BENCH_SKIP_BUILD'] === '1') return;
  try {
    execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    if (!existsSync(`${ROOT}dist/cli/main.js`)) throw err;
    console.warn('warning: `tsc -b tsconfig.build.json` failed; benchmarking the existing dist/');
  }
}

export interface SimWorkerInfo {
  url: string;
  role: 'regular' | 'prefill' | 'decode';
  /** Prefill workers: the bootstrap port for `--prefill URL PORT`. */
  bootstrapPort?: number;
}

export interface SimFleetProcess {
  proc: Managed;
  urls: string[];
  workers: SimWorkerInfo[];
}

// `sim worker NAME (sglang, model M[, prefill|decode][, realistic][, grpc]) listening on URL[ (bootstrap port P)]`
// where URL is http://HOST:PORT, or grpc://HOST:PORT for `--protocol grpc`.
const SIM_LINE = /\(([^)]*)\) listening on ((?:http|grpc):\/\/\S+)(?: \(bootstrap port (\d+)\))?/;

/**
 * `switchyard sim --port 0 ...flags` with `--count N`, or with `--fleet FILE` among the flags
 * (then `count` is the number of workers the file describes): one process serving N workers on
 * ephemeral ports. Resolves once every worker has printed its address.
 */
export async function startSimFleet(
  count: number,
  flags: readonly string[],
  cpus?: string,
): Promise<SimFleetProcess> {
  const fleetFile = flags.includes('--fleet');
  const proc = startProcess(
    'sim',
    process.execPath,
    [CLI, 'sim', ...(fleetFile ? [] : ['--count', String(count)]), '--port', '0', ...flags],
    { cpus, cwd: ROOT },
  );
  const workers: SimWorkerInfo[] = [];
  // One sim process starts 2,000 listeners in well under a second on an idle machine; the
  // allowance grows with the fleet for a busy one.
  const timeoutMs = 15_000 + 10 * count;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `sim fleet: ${workers.length} of ${count} workers up in ${timeoutMs} ms:\n${proc.output.slice(-10).join('\n')}`,
          ),
        ),
      timeoutMs,
    );
    // Every line, not the last 200 that `output` keeps: a large fleet prints one per worker.
    proc.onLine((line) => {
      const m = SIM_LINE.exec(line);
      if (m?.[2] === undefined) return;
      const kind = m[1] ?? '';
      const role = /\bprefill\b/.test(kind)
        ? 'prefill'
        : /\bdecode\b/.test(kind)
          ? 'decode'
          : 'regular';
      workers.push({
        url: m[2],
        role,
        ...(m[3] !== undefined ? { bootstrapPort: Number(m[3]) } : {}),
      });
      if (workers.length >= count) {
        clearTimeout(timer);
        resolve();
      }
    });
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`sim exited (${code}):\n${proc.output.slice(-10).join('\n')}`));
    });
  });
  return { proc, urls: workers.map((w) => w.url), workers };
}

/**
 * One sim process serving a PD pair (SGLang protocol: a prefill with its bootstrap server and a
 * decode), from a fleet file written into `dir`; `defaults` are fleet-file worker options
 * (`engine`, `ttftMs`, ...).
 */
export async function startPdSimPair(
  dir: string,
  defaults: Record<string, unknown>,
  cpus?: string,
): Promise<SimFleetProcess> {
  const file = `${dir}/pd-fleet.json`;
  writeFileSync(
    file,
    JSON.stringify({ defaults, workers: [{ role: 'prefill' }, { role: 'decode' }] }),
  );
  return startSimFleet(2, ['--fleet', file], cpus);
}

/** `--pd-disaggregation --prefill URL BOOTSTRAP_PORT ... --decode URL ...` for a started fleet. */
export function pdGatewayFlags(workers: readonly SimWorkerInfo[]): string[] {
  return [
    '--pd-disaggregation',
    ...workers
      .filter((w) => w.role === 'prefill')
      .flatMap((w) => ['--prefill', w.url, String(w.bootstrapPort ?? 'none')]),
    ...workers.filter((w) => w.role === 'decode').flatMap((w) => ['--decode', w.url]),
  ];
}

export interface GatewayProcess {
  proc: Managed;
  url: string;
  /** From spawn until /readiness first answered (the process is up and listening), ms. */
  upMs: number;
  /** From spawn until /readiness counted every expected worker healthy, ms. */
  readyMs: number;
}

export interface GatewayStart {
  /** Regular workers (`--worker-urls`); empty in PD mode, where `extraFlags` name them. */
  workerUrls: readonly string[];
  policy: string;
  extraFlags?: readonly string[];
  cpus?: string | undefined;
  /** Directory for `node --cpu-prof`; the profile is written when the gateway exits. */
  cpuProfDir?: string;
  /**
   * Healthy workers /readiness must count (default `workerUrls.length`); 0 waits only for the
   * process to answer /liveness (workers to be registered through /workers afterwards).
   */
  expectWorkers?: number;
  /** Give up waiting for readiness after this long (default 20 s). */
  readyTimeoutMs?: number;
  /** /readiness poll period (default 100 ms); the resolution of `readyMs`. */
  pollMs?: number;
  /**
   * Another build's `bin/switchyard.js` (e.g. an older commit's worktree, for before/after runs);
   * default this tree's. It loads its own tree's dist/, which must be built.
   */
  bin?: string | undefined;
}

/**
 * `switchyard launch` on a free loopback port; resolves once /readiness counts every worker.
 * 2,000 `--worker-urls` are ~50 kB of arguments, far below Linux's 2 MB ARG_MAX (each URL is its
 * own argument, so the 128 kB per-argument limit does not apply).
 */
export async function startGateway(opts: GatewayStart): Promise<GatewayProcess> {
  // freePort's port is only free until someone takes it; with thousands of loopback connections
  // open (a large sim fleet), an outgoing connection's ephemeral port sometimes does. Retry then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startGatewayOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

async function startGatewayOnce(opts: GatewayStart): Promise<GatewayProcess> {
  const port = await freePort();
  const nodeFlags =
    opts.cpuProfDir !== undefined ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : [];
  const args = [
    ...nodeFlags,
    opts.bin ?? CLI,
    'launch',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--prometheus-host',
    '127.0.0.1',
    '--prometheus-port',
    '0',
    ...(opts.workerUrls.length > 0 ? ['--worker-urls', ...opts.workerUrls] : []),
    '--policy',
    opts.policy,
    // The gateway logs nothing per request at any level; warn keeps its startup lines quiet.
    '--log-level',
    'warn',
    '--worker-startup-check-interval',
    '1',
    '--shutdown-grace-period-secs',
    '1',
    ...(opts.extraFlags ?? []),
  ];
  const t0 = performance.now();
  const proc = startProcess('switchyard', process.execPath, args, { cpus: opts.cpus, cwd: ROOT });
  const url = `http://127.0.0.1:${port}`;
  const want = opts.expectWorkers ?? opts.workerUrls.length;
  let upMs = NaN;
  await Promise.race([
    waitForHttp(
      want === 0 ? `${url}/liveness` : `${url}/readiness`,
      (status, body) => {
        if (Number.isNaN(upMs)) upMs = performance.now() - t0;
        if (want === 0) return status === 200;
        return (
          status === 200 &&
          (JSON.parse(body) as { healthy_workers?: number }).healthy_workers === want
        );
      },
      opts.readyTimeoutMs ?? 20_000,
      opts.pollMs,
    ),
    proc.exited.then((code) => {
      throw new Error(`switchyard exited (${code}):\n${proc.output.join('\n')}`);
    }),
  ]).catch(async (err: unknown) => {
    await proc.stop();
    throw err;
  });
  return { proc, url, upMs, readyMs: performance.now() - t0 };
}
