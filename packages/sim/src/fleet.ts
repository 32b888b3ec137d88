// Many workers in one process (SMG's mock worker does the same with --http-base-port/--http-count):
// benchmarks and the demo need tens of workers without tens of processes.
import type { SimWorker, SimWorkerOptions } from './options.js';
import { startSimWorker } from './start-worker.js';

/** Options of a fleet: worker options plus the first port (0 or absent = every port ephemeral). */
export type SimFleetOptions = SimWorkerOptions & { basePort?: number };

/**
 * Starts `count` identical workers on consecutive ports (or ephemeral ones). They share the seed,
 * so the same request gets the same text from any of them. If one fails to start (port taken),
 * the ones already started are closed and the error is rethrown.
 */
export async function startSimFleet(
  count: number,
  opts: SimFleetOptions = {},
): Promise<SimWorker[]> {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`sim: fleet count must be an integer >= 1, got ${String(count)}`);
  }
  const { basePort, ...workerOpts } = opts;
  const base = basePort ?? workerOpts.port ?? 0;
  const workers: SimWorker[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const workerName =
        workerOpts.workerName === undefined || count === 1
          ? workerOpts.workerName
          : `${workerOpts.workerName}-${i}`;
      workers.push(
        await startSimWorker({ ...workerOpts, port: base === 0 ? 0 : base + i, workerName }),
      );
    }
  } catch (err) {
    await Promise.all(workers.map((w) => w.close()));
    throw err;
  }
  return workers;
}
