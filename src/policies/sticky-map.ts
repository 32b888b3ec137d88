/**
 * The sticky routing-key map shared by the manual policy and `--routing-key-override`
 * (SMG `manual.rs`): key → up to two candidate workers and a last-access time.
 *
 * - A known key goes to its first available candidate (`occupied_hit`); if none is available a
 *   new worker is assigned and appended, dropping the oldest past two (`occupied_miss`).
 * - A new key is assigned a worker and remembered (`vacant`).
 * - Adding workers never moves a key; a key only moves when its workers are unavailable.
 * - A sweep every `evictionIntervalSecs` drops keys idle for at least `maxIdleSecs`.
 * Gauges are moved by increments, not set, so several maps (one per model and leg) add up.
 * A known key costs O(1): its (at most two) workers are looked up by key in the candidate set.
 */
import type { Counter, Gauge } from 'prom-client';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import { every } from '../util/every.js';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import type { SelectInfo } from './policy.js';

export type ManualBranch =
  'no_healthy_workers' | 'occupied_hit' | 'occupied_miss' | 'vacant' | 'no_routing_id';

export const MAX_CANDIDATE_WORKERS = 2;

/** Picks a worker for a key that has none available; undefined when there is none. */
export interface Assigner {
  assign(candidates: CandidateSet, info: SelectInfo): Worker | undefined;
}

interface StickyEntry {
  /** Worker keys, oldest first. */
  workers: string[];
  lastAccess: number;
}

export interface StickyMapOptions {
  readonly clock: Clock;
  readonly metrics: GatewayMetrics;
  readonly evictionIntervalSecs: number;
  readonly maxIdleSecs: number;
}

export class StickyMap {
  readonly #entries = new Map<string, StickyEntry>();
  readonly #keysPerWorker = new Map<string, number>();
  readonly #clock: Clock;
  readonly #maxIdleMs: number;
  readonly #branches: Record<ManualBranch, Counter.Internal>;
  readonly #entriesGauge: Gauge;
  readonly #keysGauge: Gauge<'worker'>;
  #stopSweep: (() => void) | undefined;

  constructor(options: StickyMapOptions) {
    this.#clock = options.clock;
    this.#maxIdleMs = options.maxIdleSecs * 1000;
    const c = options.metrics.manualBranch;
    this.#branches = {
      no_healthy_workers: c.labels({ branch: 'no_healthy_workers' }),
      occupied_hit: c.labels({ branch: 'occupied_hit' }),
      occupied_miss: c.labels({ branch: 'occupied_miss' }),
      vacant: c.labels({ branch: 'vacant' }),
      no_routing_id: c.labels({ branch: 'no_routing_id' }),
    };
    this.#entriesGauge = options.metrics.manualCacheEntries;
    this.#keysGauge = options.metrics.routingKeysActive;
    const intervalMs = options.evictionIntervalSecs * 1000;
    if (intervalMs > 0 && this.#maxIdleMs > 0) {
      this.#stopSweep = every(this.#clock, intervalMs, () => this.sweep());
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Routing keys currently pinned to the worker (the `min_group` measure). */
  keysFor(workerKey: string): number {
    return this.#keysPerWorker.get(workerKey) ?? 0;
  }

  /** The pinned workers of a key, oldest first (inspection and tests). */
  workersOf(key: string): readonly string[] | undefined {
    return this.#entries.get(key)?.workers;
  }

  countBranch(branch: ManualBranch): void {
    this.#branches[branch].inc();
  }

  route(
    key: string,
    candidates: CandidateSet,
    info: SelectInfo,
    assigner: Assigner,
  ): Worker | undefined {
    const now = this.#clock.now();
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.lastAccess = now;
      const pinned = firstAvailable(entry.workers, candidates);
      if (pinned !== undefined) return this.#done('occupied_hit', pinned);
      const fresh = assigner.assign(candidates, info);
      if (fresh === undefined) return this.#done('no_healthy_workers', undefined);
      this.#pin(entry, fresh.key);
      return this.#done('occupied_miss', fresh);
    }
    const fresh = assigner.assign(candidates, info);
    if (fresh === undefined) return this.#done('no_healthy_workers', undefined);
    const created: StickyEntry = { workers: [], lastAccess: now };
    this.#entries.set(key, created);
    this.#entriesGauge.inc();
    this.#pin(created, fresh.key);
    return this.#done('vacant', fresh);
  }

  /** Drops keys idle for at least `maxIdleSecs` (SMG keeps only `idle < max_idle`). */
  sweep(): number {
    const now = this.#clock.now();
    let removed = 0;
    for (const [key, entry] of this.#entries) {
      if (now - entry.lastAccess < this.#maxIdleMs) continue;
      this.#drop(key, entry);
      removed++;
    }
    return removed;
  }

  /** Unpins a removed worker everywhere; its keys re-assign on next use (`occupied_miss`). */
  forgetWorker(workerKey: string): void {
    if (!this.#keysPerWorker.has(workerKey)) return;
    for (const entry of this.#entries.values()) {
      const i = entry.workers.indexOf(workerKey);
      if (i >= 0) {
        entry.workers.splice(i, 1);
        this.#countKey(workerKey, -1);
      }
    }
  }

  close(): void {
    this.#stopSweep?.();
    this.#stopSweep = undefined;
    for (const [key, entry] of this.#entries) this.#drop(key, entry);
  }

  #pin(entry: StickyEntry, workerKey: string): void {
    const existing = entry.workers.indexOf(workerKey);
    if (existing >= 0) {
      // Already pinned (an inner policy may pick a pinned worker the circuit breaker blocks):
      // make it the newest instead of holding it twice.
      entry.workers.splice(existing, 1);
      entry.workers.push(workerKey);
      return;
    }
    while (entry.workers.length >= MAX_CANDIDATE_WORKERS) {
      const oldest = entry.workers.shift() as string;
      this.#countKey(oldest, -1);
    }
    entry.workers.push(workerKey);
    this.#countKey(workerKey, 1);
  }

  #drop(key: string, entry: StickyEntry): void {
    this.#entries.delete(key);
    this.#entriesGauge.dec();
    for (const w of entry.workers) this.#countKey(w, -1);
  }

  #countKey(workerKey: string, delta: number): void {
    const next = (this.#keysPerWorker.get(workerKey) ?? 0) + delta;
    if (next > 0) this.#keysPerWorker.set(workerKey, next);
    else this.#keysPerWorker.delete(workerKey);
    if (delta > 0) this.#keysGauge.inc({ worker: workerKey }, delta);
    else this.#keysGauge.dec({ worker: workerKey }, -delta);
  }

  #done(branch: ManualBranch, worker: Worker | undefined): Worker | undefined {
    this.#branches[branch].inc();
    return worker;
  }
}

function firstAvailable(pinned: readonly string[], candidates: CandidateSet): Worker | undefined {
  for (const key of pinned) {
    const w = candidates.byKey(key);
    if (w?.isAvailable() === true) return w;
  }
  return undefined;
}

/** PD legs keep separate keys, as SMG (`prefill:`/`decode:`), so each leg pins its own worker. */
export function namespacedKey(key: string, leg: SelectInfo['leg']): string {
  return leg === 'single' ? key : `${leg}:${key}`;
}
