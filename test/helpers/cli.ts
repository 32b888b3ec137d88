/** Runs the built `switchyard` binary as a child process, as a user would. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { main } from '../../src/cli/main.js';
import { repoPath } from './repo-root.js';
import { reapOnExit } from './child-reaper.js';

export const BIN = repoPath('bin', 'switchyard.js');

/** Both listeners on loopback with ephemeral ports, as every test that starts the binary needs. */
export const LOOPBACK_EPHEMERAL: readonly string[] = [
  '--host',
  '127.0.0.1',
  '--port',
  '0',
  '--prometheus-host',
  '127.0.0.1',
  '--prometheus-port',
  '0',
];

export function runCli(
  args: string[],
  timeoutMs = 20_000,
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs the `switchyard` command table in this process, with stdout and stderr captured: what a
 * refusal test needs (the exit code and the one line), without starting a Node process and
 * loading the gateway for each case. Each e2e file keeps one case through the real binary.
 * Only for argv that exits on its own; a launch that starts serving would not return.
 */
export async function runMain(
  args: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  // The command writes strings. The test runner reports this file's results on the same stdout
  // as binary frames, and does so whenever the command awaits (a lazy import): those pass through.
  process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]): boolean =>
    typeof chunk === 'string' ? ((stdout += chunk), true) : out(chunk, ...rest);
  process.stderr.write = (chunk: string | Uint8Array, ...rest: never[]): boolean =>
    typeof chunk === 'string' ? ((stderr += chunk), true) : err(chunk, ...rest);
  try {
    const status = await main(args);
    return { status, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the binary; `env` entries are added to this process's environment. */
export function startCli(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  reapOnExit(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for a JSON log line with the given msg and returns it. */
export async function waitForLog(
  run: Running,
  msg: string,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of run.stderr().split('\n')) {
      if (!line.startsWith('{')) continue;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.msg === msg) return record;
    }
    if (Date.now() > deadline)
      throw new Error(`no '${msg}' log line; stderr so far:\n${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
