// Child processes for benchmarks: every child runs in its own process group (detached), so that
// one kill reaches everything it forked (nginx's worker, a shell's children), and every group is
// killed when this process ends, whether by success, exception, SIGINT or SIGTERM. CPU time is
// read from /proc/<pid>/stat (utime + stime, all threads).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const live = new Set<Managed>();
let cleanupInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Kills every live child group at once; safe to call from an 'exit' handler (synchronous). */
export function killAllSync(): void {
  for (const m of live) killGroup(m.pid, 'SIGKILL');
  live.clear();
}

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', killAllSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAllSync();
      process.exit(130);
    });
  }
}

export interface SpawnOptions {
  /** CPU list for taskset (e.g. "0"); ignored when taskset is missing. */
  cpus?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** A child process group started by `startProcess`. */
export class Managed {
  /** The last 200 output lines (stdout and stderr); `onLine` sees every line. */
  readonly output: string[] = [];
  #waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  readonly #listeners: ((line: string) => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const onLine = (line: string): void => {
      this.output.push(line);
      if (this.output.length > 200) this.output.shift();
      for (const f of this.#listeners) f(line);
      this.#waiters = this.#waiters.filter((w) => {
        const m = line.match(w.re);
        if (m) w.resolve(m);
        return !m;
      });
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
    if (child.stderr) createInterface({ input: child.stderr }).on('line', onLine);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Calls `f` with every later output line (a sim fleet of 2,000 workers prints 2,000). */
  onLine(f: (line: string) => void): void {
    this.#listeners.push(f);
  }

  /**
   * SIGSTOP / SIGCONT to the group: a paused process uses no CPU, so idle processes of ours (a
   * gateway's background polling) do not share a core with the one being measured.
   */
  pause(): void {
    if (live.has(this)) killGroup(this.pid, 'SIGSTOP');
  }

  resume(): void {
    if (live.has(this)) killGroup(this.pid, 'SIGCONT');
  }

  /** Resolves with the first output line (stdout or stderr) matching `re`. */
  waitForLine(re: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
    for (const line of this.output) {
      const m = line.match(re);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.name}: no line matching ${re} within ${timeoutMs} ms\n${this.output.slice(-10).join('\n')}`,
            ),
          ),
        timeoutMs,
      );
      void this.exited.then((code) =>
        reject(
          new Error(
            `${this.name} exited (${code}) before ${re}\n${this.output.slice(-10).join('\n')}`,
          ),
        ),
      );
      this.#waiters.push({
        re,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the leader has exited. */
  async stop(graceMs = 3000): Promise<void> {
    if (!live.has(this)) return;
    // A stopped process keeps SIGTERM pending; let it act on it.
    killGroup(this.pid, 'SIGCONT');
    killGroup(this.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(this.pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // The leader may be gone while forked members linger; make sure none survive.
    killGroup(this.pid, 'SIGKILL');
    live.delete(this);
  }
}

let tasksetPath: string | null | undefined;

/** Path of taskset, or null when this machine lacks it (pinning is then skipped). */
export function taskset(): string | null {
  if (tasksetPath !== undefined) return tasksetPath;
  try {
    tasksetPath =
      execFileSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' }).trim() || null;
  } catch {
    tasksetPath = null;
  }
  return tasksetPath;
}

export function startProcess(
  name: string,
  cmd: string,
  args: readonly string[],
  opts: SpawnOptions = {},
): Managed {
  installCleanup();
  const pin = opts.cpus !== undefined ? taskset() : null;
  // taskset execs the command, so the group leader's pid is the command's own pid.
  const [file, argv] =
    pin !== null && opts.cpus !== undefined
      ? [pin, ['-c', opts.cpus, cmd, ...args]]
      : [cmd, [...args]];
  const child = spawn(file, argv, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const m = new Managed(name, child);
  child.once('error', (err) => m.output.push(`spawn error: ${err.message}`));
  live.add(m);
  return m;
}

/** Pins this very process (all its threads) to `cpus`; returns false without taskset. */
export function pinSelf(cpus: string): boolean {
  const t = taskset();
  if (t === null) return false;
  execFileSync(t, ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
  return true;
}

let clkTck: number | undefined;

function ticksPerSecond(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** Parses /proc/<pid>/stat text: [pgrp, utime + stime] (fields 5, 14, 15; comm may hold spaces). */
function parseStat(text: string): [number, number] {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  return [Number(rest[2]), Number(rest[11]) + Number(rest[12])];
}

/**
 * CPU seconds used so far by every process in the group led by `pgid` (children included,
 * threads included). Resolution is 1/CLK_TCK (10 ms), so read it over whole runs, not requests.
 */
export function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    try {
      const [pgrp, t] = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (pgrp === pgid) ticks += t;
    } catch {
      // The process ended between readdir and read.
    }
  }
  return ticks / ticksPerSecond();
}

/** CPU seconds used so far by one process (all its threads, not its children); NaN once gone. */
export function pidCpuSeconds(pid: number): number {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))[1] / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** The process group this process belongs to (its children that are not detached share it). */
export function ownProcessGroup(): number {
  return parseStat(readFileSync('/proc/self/stat', 'utf8'))[0];
}

/** This process's own CPU seconds (all threads), for the load generator's self-report. */
export function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** A loopback port that was free a moment ago (bind to 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` every `pollMs` until `accept(status, body)` holds or `timeoutMs` passes. */
export async function waitForHttp(
  url: string,
  accept: (status: number, body: string) => boolean,
  timeoutMs = 15_000,
  pollMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      const body = await res.text();
      if (accept(res.status, body)) return;
      last = `${res.status} ${body.slice(0, 200)}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms (last: ${last})`);
}

/** A `/proc/<pid>/status` size field (`VmRSS`, `VmHWM`) in bytes; NaN when unreadable. */
export function procMemBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m?.[1] !== undefined ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The soft limit on open files this process (and so its children) has; Infinity if unknown. */
export function openFilesLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m?.[1] === undefined || m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch {
    return Infinity;
  }
}

/** Per-process CPU ticks (utime + stime, all threads) of every process on the machine, by pid. */
export type CpuSnapshot = Map<number, { pgrp: number; ticks: number }>;

export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
      // Children's time (cutime) is left out: a test runner reaping a two-minute test would book
      // all of it inside one 3 s window. Processes that end mid-window are missed instead.
      const ticks = Number(rest[11]) + Number(rest[12]);
      out.set(Number(entry), { pgrp: Number(rest[2]), ticks });
    } catch {
      // Gone between readdir and read.
    }
  }
  return out;
}

/**
 * CPU seconds used between two snapshots by processes outside `ourGroups` (and not this process):
 * other users of a shared machine. Machine-wide /proc/stat cannot be used for this on the
 * project's VMs: with the haltpoll idle driver, one busy vCPU makes both look busy.
 */
export function foreignCpuSeconds(
  a: CpuSnapshot,
  b: CpuSnapshot,
  ourGroups: ReadonlySet<number>,
): number {
  let ticks = 0;
  for (const [pid, now] of b) {
    if (pid === process.pid || ourGroups.has(now.pgrp)) continue;
    ticks += Math.max(0, now.ticks - (a.get(pid)?.ticks ?? 0));
  }
  return ticks / ticksPerSecond();
}

/**
 * Waits (up to `maxWaitMs`) until other processes use less than `maxCores` over a 500 ms sample,
 * so a run does not start in the middle of someone else's burst on a shared machine. Returns the
 * last sample in cores; never fails, since a busy machine is reported, not fatal.
 */
export async function waitForQuiet(
  ourGroups: ReadonlySet<number>,
  maxCores = 0.2,
  maxWaitMs = 5000,
): Promise<number> {
  const deadline = performance.now() + maxWaitMs;
  for (;;) {
    const a = cpuSnapshot();
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const cores = foreignCpuSeconds(a, cpuSnapshot(), ourGroups) / ((performance.now() - t) / 1000);
    if (cores <= maxCores || performance.now() >= deadline) return cores;
  }
}
