// The systems under test as child processes, started from the built CLI (bin/switchyard.js), so
// each has its own pid whose CPU can be read apart from the load generator's, and can be pinned
// to a core with taskset. Build once with `ensureBuilt()` before starting any of them.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    if (!existsSync(`${ROOT}dist/cli/main.js`)) throw err;
    console.warn('warning: `tsc -p tsconfig.build.json` failed; benchmarking the existing dist/');
  }
}

export interface SimFleetProcess {
  proc: Managed;
  urls: string[];
}

/** `switchyard sim --count N --port 0 ...flags`: one process serving N workers on ephemeral ports. */
export async function startSimFleet(
  count: number,
  flags: readonly string[],
  cpus?: string,
): Promise<SimFleetProcess> {
  const proc = startProcess(
    'sim',
    process.execPath,
    [CLI, 'sim', '--count', String(count), '--port', '0', ...flags],
    { cpus, cwd: ROOT },
  );
  const urls: string[] = [];
  const re = /listening on (http:\/\/\S+)/;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sim fleet did not start:\n${proc.output.join('\n')}`)),
      15_000,
    );
    const check = (): void => {
      urls.length = 0;
      for (const line of proc.output) {
        const m = re.exec(line);
        if (m?.[1] !== undefined) urls.push(m[1]);
      }
      if (urls.length >= count) {
        clearTimeout(timer);
        resolve();
      } else setTimeout(check, 50);
    };
    void proc.exited.then((code) =>
      reject(new Error(`sim exited (${code}):\n${proc.output.join('\n')}`)),
    );
    check();
  });
  return { proc, urls };
}

export interface GatewayProcess {
  proc: Managed;
  url: string;
}

export interface GatewayStart {
  workerUrls: readonly string[];
  policy: string;
  extraFlags?: readonly string[];
  cpus?: string | undefined;
  /** Directory for `node --cpu-prof`; the profile is written when the gateway exits. */
  cpuProfDir?: string;
}

/** `switchyard launch` on a free loopback port; resolves once /readiness counts every worker. */
export async function startGateway(opts: GatewayStart): Promise<GatewayProcess> {
  const port = await freePort();
  const nodeFlags =
    opts.cpuProfDir !== undefined ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : [];
  const args = [
    ...nodeFlags,
    CLI,
    'launch',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--prometheus-host',
    '127.0.0.1',
    '--prometheus-port',
    '0',
    '--worker-urls',
    ...opts.workerUrls,
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
  const proc = startProcess('switchyard', process.execPath, args, { cpus: opts.cpus, cwd: ROOT });
  const url = `http://127.0.0.1:${port}`;
  const want = opts.workerUrls.length;
  await Promise.race([
    waitForHttp(
      `${url}/readiness`,
      (status, body) =>
        status === 200 &&
        (JSON.parse(body) as { healthy_workers?: number }).healthy_workers === want,
      20_000,
    ),
    proc.exited.then((code) => {
      throw new Error(`switchyard exited (${code}):\n${proc.output.join('\n')}`);
    }),
  ]);
  return { proc, url };
}
