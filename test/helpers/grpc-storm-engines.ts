/**
 * The storm's view of engines running in this process (the test slice): faults set directly,
 * counts read from the simulator's own stats and gRPC records.
 */
import type { SimWorker } from '@switchyard/sim';
import type { EngineCounts, StormEngine } from './grpc-storm.js';

export interface EngineTotals extends EngineCounts {
  name: string;
  role: StormEngine['role'];
}

/** Counts of one simulated engine: its open Generates, peak, and the Abort ids it received. */
export function engineCounts(w: SimWorker): EngineCounts {
  const stats = w.stats();
  const ids = new Set<string>();
  for (const a of w.grpc?.aborts ?? []) for (const id of a.requestIds) ids.add(id);
  return {
    running: stats.running,
    peakRunning: stats.peakRunning,
    generates: w.grpc?.requests.length ?? 0,
    cancelled: stats.aborted,
    abortedIds: ids.size,
  };
}

export function inProcessStormEngine(w: SimWorker, name: string): StormEngine {
  return {
    name,
    role: w.role,
    setFaults: (f) => {
      w.setFaults(f);
      return Promise.resolve();
    },
    counts: () => Promise.resolve(engineCounts(w)),
  };
}
