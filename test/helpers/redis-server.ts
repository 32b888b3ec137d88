/**
 * A real `redis-server` (Debian's, installed by scripts/ensure-redis.sh) on 127.0.0.1 and a free
 * port, for the admission-store tests: Lua scripts, TIME and pub/sub behave as in production,
 * which no mock models faithfully. It can be stopped, killed and restarted on the same port, so
 * tests can take Redis away from running stores and give it back.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { repoPath } from './repo-root.js';
import { reapOnExit } from './child-reaper.js';

export class RedisServer {
  #child: ChildProcess | undefined;
  readonly #dir: string;

  private constructor(readonly port: number) {
    this.#dir = repoPath('.tmp', 'redis', `${process.pid}-${port}`);
  }

  /** Starts a server on a free port and resolves once it answers PING. */
  static async start(): Promise<RedisServer> {
    if (spawnSync('redis-server', ['--version']).error) {
      throw new Error('redis-server is not on PATH; run `bash scripts/ensure-redis.sh` first');
    }
    const server = new RedisServer(await freePort());
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts it again on the same port, empty (nothing is saved). */
  async restart(): Promise<void> {
    if (this.#child) throw new Error('redis-server is already running');
    mkdirSync(this.#dir, { recursive: true });
    const child = spawn(
      'redis-server',
      [
        ...['--port', String(this.port), '--bind', '127.0.0.1'],
        ...['--save', '', '--appendonly', 'no', '--dir', this.#dir],
        ...['--daemonize', 'no', '--loglevel', 'warning'],
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    reapOnExit(child);
    this.#child = child;
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`redis-server exited with ${String(code)} before answering PING`);
    });
    try {
      await Promise.race([this.#untilPong(), exited]);
    } catch (err) {
      await this.kill();
      throw err;
    }
    exited.catch(() => undefined);
  }

  /** SIGTERM, as an orderly shutdown: clients see their connections closed. */
  stop(): Promise<void> {
    return this.#signal('SIGTERM');
  }

  /** SIGKILL, as a crash. */
  kill(): Promise<void> {
    return this.#signal('SIGKILL');
  }

  /** Stops the server if it runs and removes its folder. For `after()`. */
  async close(): Promise<void> {
    await this.kill();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  async #untilPong(): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!(await ping(this.port))) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${this.port} never answered`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** One PING over a raw socket: true on +PONG, false on anything else (refused, loading). */
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
