// A real redis-server (Debian's; `bash scripts/ensure-redis.sh` installs it) on a free loopback
// port, as a managed child process group: stopped with everything else the benchmark started, and
// its CPU readable from /proc like any other process under test. Nothing is saved to disk.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort, startProcess, type Managed } from '../lib/proc.js';
import { ROOT } from '../lib/results.js';

export interface BenchRedis {
  proc: Managed;
  url: string;
  version: string;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<BenchRedis> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error)
    throw new Error('redis-server is not on PATH; run `bash scripts/ensure-redis.sh`');
  const version = /v=(\S+)/.exec(probe.stdout)?.[1] ?? 'unknown';
  const port = await freePort();
  const dir = `${ROOT}.tmp/bench-redis-${process.pid}-${port}`;
  mkdirSync(dir, { recursive: true });
  const proc = startProcess('redis-server', 'redis-server', [
    ...['--port', String(port), '--bind', '127.0.0.1'],
    ...['--save', '', '--appendonly', 'no', '--dir', dir],
    ...['--daemonize', 'no', '--loglevel', 'warning'],
  ]);
  const deadline = Date.now() + 5000;
  while (!(await ping(port))) {
    if (proc.child.exitCode !== null || Date.now() > deadline) {
      await proc.stop();
      throw new Error(`redis-server did not answer PING:\n${proc.output.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    proc,
    url: `redis://127.0.0.1:${port}`,
    version,
    stop: async () => {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One PING over a raw socket: true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
