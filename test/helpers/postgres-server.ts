/**
 * A real, throwaway Postgres cluster (Debian's `postgresql`, installed by
 * scripts/ensure-postgres.sh) for the history-store tests: initdb into a temp folder, then
 * `postgres` on 127.0.0.1 and a free port, its unix socket in that folder, fsync off (the data
 * is thrown away). It can be stopped and started again on the same port with its data, so tests
 * can take Postgres away from running stores and give it back.
 *
 * Postgres refuses to run as root, and CI runs as root: then initdb and postgres run as the
 * `postgres` user the Debian package creates (or `nobody`), in a folder that user owns.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';
import { reapOnExit } from './child-reaper.js';

const SUPERUSER = 'postgres';

export class PostgresServer {
  #child: ChildProcess | undefined;
  #paused = false;
  readonly #bin: string;
  /** Who initdb and postgres run as, when this process is root. */
  readonly #as: { uid: number; gid: number } | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    bin: string,
    as: { uid: number; gid: number } | undefined,
  ) {
    this.#bin = bin;
    this.#as = as;
  }

  /** Makes a cluster in a new temp folder and starts it on a free port. */
  static async start(): Promise<PostgresServer> {
    const bin = findBinDir();
    const as = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    if (as) chownSync(dir, as.uid, as.gid);
    const server = new PostgresServer(await freePort(), dir, bin, as);
    const init = spawnSync(
      join(bin, 'initdb'),
      ['-D', server.#data, '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--no-locale', '-N'],
      { ...server.#spawnOptions(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (init.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`initdb failed (${String(init.status)}): ${init.stderr || init.stdout}`);
    }
    await server.restart();
    return server;
  }

  get #data(): string {
    return join(this.dir, 'data');
  }

  /** A URL for `database` on this server, as the superuser (trust auth: no password). */
  url(database = 'postgres'): string {
    return `postgres://${SUPERUSER}@127.0.0.1:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts it again on the same port, with the data it had. Resolves once it takes queries. */
  async restart(): Promise<void> {
    if (this.#child) throw new Error('postgres is already running');
    const child = spawn(
      join(this.#bin, 'postgres'),
      [
        ...['-D', this.#data, '-p', String(this.port), '-k', this.dir],
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
        ...['-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ...['-c', 'max_connections=60', '-c', 'shared_buffers=16MB'],
        ...['-c', 'log_min_messages=fatal'],
      ],
      { ...this.#spawnOptions(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    reapOnExit(child);
    this.#child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`postgres exited with ${String(code)} before it took queries: ${stderr}`);
    });
    try {
      await Promise.race([this.#untilReady(), exited]);
    } catch (err) {
      await this.#signal('SIGQUIT');
      throw err;
    }
    exited.catch(() => undefined);
  }

  /** Fast shutdown (SIGINT): open sessions are ended, as when an operator stops Postgres. */
  stop(): Promise<void> {
    return this.#signal('SIGINT');
  }

  /**
   * SIGSTOP to postgres and every process it forked, as a server that hangs: connections stay
   * open and new ones are accepted by the kernel, but nothing answers. Undone by `resume()`.
   */
  pause(): void {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('postgres is not running');
    // The postmaster first, so it forks no backend we would miss.
    process.kill(pid, 'SIGSTOP');
    for (const child of childPids(pid)) process.kill(child, 'SIGSTOP');
    this.#paused = true;
  }

  resume(): void {
    const pid = this.#child?.pid;
    if (pid === undefined || !this.#paused) return;
    this.#paused = false;
    for (const child of childPids(pid)) process.kill(child, 'SIGCONT');
    process.kill(pid, 'SIGCONT');
  }

  /** Runs one statement as the superuser on `database` (for CREATE/DROP DATABASE and checks). */
  async sql(text: string, database = 'postgres'): Promise<Record<string, unknown>[]> {
    const client = new Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query<Record<string, unknown>>(text)).rows;
    } finally {
      await client.end();
    }
  }

  /** A new empty database with a name unique to this call. */
  async createDatabase(prefix = 'history'): Promise<string> {
    const name = `${prefix}_${process.pid}_${(dbSeq += 1)}`;
    await this.sql(`CREATE DATABASE ${name}`);
    return name;
  }

  /** Stops the server if it runs and removes its folder. For `after()`. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  #spawnOptions(): SpawnOptions {
    // Postgres reads no config of ours from the environment; LC_ALL keeps initdb from warning
    // about a locale the machine lacks.
    const env = { PATH: process.env['PATH'] ?? '', LC_ALL: 'C', HOME: this.dir };
    return { cwd: this.dir, env, ...(this.#as ?? {}) };
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    this.resume();
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  async #untilReady(): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const client = new Client({ connectionString: this.url(), connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`postgres on ${this.port} never answered`, { cause: err });
      } finally {
        await client.end().catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

let dbSeq = 0;

/**
 * The folder with `postgres` and `initdb`: $POSTGRES_BIN_DIR, else the first on PATH that has
 * both (here /usr/local/bin links to Debian's), else Debian's newest /usr/lib/postgresql/N/bin.
 */
export function findBinDir(): string {
  const hasBoth = (dir: string): boolean =>
    existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb'));
  const fromEnv = process.env['POSTGRES_BIN_DIR'];
  if (fromEnv && hasBoth(fromEnv)) return fromEnv;
  const onPath = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean).find(hasBoth);
  if (onPath) return onPath;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const debian = versions.map((v) => join(root, v, 'bin')).find(hasBoth);
  if (debian) return debian;
  throw new Error('no postgres/initdb found; run `bash scripts/ensure-postgres.sh` first');
}

/** The processes whose parent is `pid`, from /proc (procps may not be installed). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parens, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** The uid and gid of `postgres` (Debian's package makes it), else `nobody`. */
function unprivilegedUser(): { uid: number; gid: number } {
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n');
  for (const name of [SUPERUSER, 'nobody']) {
    const fields = passwd.find((line) => line.startsWith(`${name}:`))?.split(':');
    if (fields && fields[2] && fields[3]) return { uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  throw new Error('running as root and there is no postgres or nobody user to run Postgres as');
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
