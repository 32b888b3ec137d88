/**
 * One instant worker (no TTFT, no ITL) for each runtime, for a test file: started before its
 * tests and, after them, checked to hold no running request, then closed.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { SimRuntime, SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { SIM_RUNTIMES } from '../../src/options.js';

export function instantWorkers(): (runtime: SimRuntime) => SimWorker {
  const workers = new Map<SimRuntime, SimWorker>();
  before(async () => {
    for (const runtime of SIM_RUNTIMES) {
      workers.set(runtime, await startSimWorker({ runtime, ttftMs: 0, itlMs: 0 }));
    }
  });
  after(async () => {
    for (const w of workers.values()) assert.equal(w.stats().running, 0, `${w.name} leaked`);
    await Promise.all([...workers.values()].map((w) => w.close()));
  });
  return (runtime) => {
    const w = workers.get(runtime);
    if (w === undefined)
      throw new Error(`no ${runtime} worker: instantWorkers() starts them in before()`);
    return w;
  };
}
