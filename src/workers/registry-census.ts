/**
 * What the registered workers announce, kept by counting each worker in when it joins and out
 * when it leaves: the primary model ids (one policy per model), every announced model name
 * (metric labels and candidate sets) and `smg_worker_pool_size`. A pass over every worker per
 * registration made registering n workers cost O(n²).
 */
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Worker, WorkerType } from './worker.js';
import type { ConnectionMode } from './worker-url.js';

/** What one worker was counted under, so it is counted out the same way after a label change. */
interface Counted {
  readonly type: WorkerType;
  readonly mode: ConnectionMode;
  readonly modelId: string;
  readonly announces: readonly string[];
}

export class RegistryCensus {
  /** Every model id some counted worker announces (cards and `model_id` labels). */
  readonly announced = new Set<string>();
  readonly #announcedCounts = new Map<string, number>();
  readonly #modelIds = new Map<string, number>();
  /** Worker counts per `worker_type` + `connection_mode`, then per model. */
  readonly #pools = new Map<string, Map<string, number>>();
  readonly #counted = new Map<Worker, Counted>();

  constructor(private readonly poolSize: GatewayMetrics['workerPoolSize']) {}

  /** Whether some counted worker's primary model id is `model`. */
  hasModelId(model: string): boolean {
    return this.#modelIds.has(model);
  }

  add(worker: Worker): void {
    if (this.#counted.has(worker)) return;
    const announces = [...worker.models];
    if (worker.labels.model_id !== undefined) announces.push(worker.labels.model_id);
    const entry: Counted = {
      type: worker.type,
      mode: worker.connectionMode,
      modelId: worker.modelId,
      announces,
    };
    this.#counted.set(worker, entry);
    this.#count(entry, 1);
  }

  remove(worker: Worker): void {
    const entry = this.#counted.get(worker);
    if (entry === undefined) return;
    this.#counted.delete(worker);
    this.#count(entry, -1);
  }

  /** Counts the worker again after its labels changed (its `model_id` may be another). */
  recount(worker: Worker): void {
    this.remove(worker);
    this.add(worker);
  }

  #count(entry: Counted, delta: number): void {
    bump(this.#modelIds, entry.modelId, delta);
    for (const m of entry.announces) {
      if (bump(this.#announcedCounts, m, delta) === 0) this.announced.delete(m);
      else this.announced.add(m);
    }
    const poolKey = `${entry.type} ${entry.mode}`;
    let pools = this.#pools.get(poolKey);
    if (pools === undefined) {
      pools = new Map();
      this.#pools.set(poolKey, pools);
    }
    const n = bump(pools, entry.modelId, delta);
    const labels = {
      worker_type: entry.type,
      connection_mode: entry.mode,
      model: entry.modelId,
    };
    if (n === 0) this.poolSize.remove(labels);
    else this.poolSize.set(labels, n);
  }
}

/** Adds `delta` to a count, dropping it at zero; returns the new count. */
function bump(counts: Map<string, number>, key: string, delta: number): number {
  const n = (counts.get(key) ?? 0) + delta;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
  return n;
}
