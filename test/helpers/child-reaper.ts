/**
 * Child processes a test file started and has not seen exit (gateways, redis-server). A test file
 * that fails, or that the runner stops at its timeout, must not leave them running (holding
 * ports, connections and CPU) after it: they are killed when this process exits or is told to
 * stop.
 */
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let armed = false;

function arm(): void {
  if (armed) return;
  armed = true;
  const killAll = (): void => {
    for (const child of live) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
  }
}

/** Kills `child` with this process unless it has exited by then. */
export function reapOnExit(child: ChildProcess): void {
  arm();
  live.add(child);
  child.once('exit', () => live.delete(child));
}
