/**
 * manual (SMG `manual.rs`, smg-core.md §4.9): sticky sessions by routing key. Unlike
 * consistent_hashing, adding workers never moves a session; a session moves only when its
 * workers are unavailable, and keeps up to two workers for fast failover. Requests without a
 * key are assigned per mode (`no_routing_id`). The mode defaults to `random`; `delegate` has no
 * inner policy here and behaves as `min_load`, as SMG.
 */
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '../util/clock.js';
import type { Random } from '../util/random.js';
import type { Worker } from '../workers/worker.js';
import { assignByMode, type DirectMode } from './assignment.js';
import type { PolicyConfig } from './policy-config.js';
import { availableWorkers, type Policy, type SelectInfo } from './policy.js';
import { namespacedKey, StickyMap, type Assigner } from './sticky-map.js';

export interface ManualDeps {
  readonly random: Random;
  readonly clock: Clock;
  readonly metrics: GatewayMetrics;
  readonly config: PolicyConfig;
}

export class ManualPolicy implements Policy, Assigner {
  readonly name = 'manual' as const;
  readonly #map: StickyMap;
  readonly #mode: DirectMode;
  readonly #random: Random;
  readonly #keysFor = (workerKey: string): number => this.#map.keysFor(workerKey);

  constructor(deps: ManualDeps) {
    const { config } = deps;
    this.#random = deps.random;
    const mode = config.assignmentMode ?? 'random';
    this.#mode = mode === 'delegate' ? 'min_load' : mode;
    this.#map = new StickyMap({
      clock: deps.clock,
      metrics: deps.metrics,
      evictionIntervalSecs: config.evictionIntervalSecs,
      maxIdleSecs: config.maxIdleSecs,
    });
  }

  /** The sticky map (tests and diagnostics; the sweep is normally run by its timer). */
  get stickyMap(): StickyMap {
    return this.#map;
  }

  select(candidates: readonly Worker[], info: SelectInfo): Worker | undefined {
    const available = availableWorkers(candidates);
    if (available.length === 0) {
      this.#map.countBranch('no_healthy_workers');
      return undefined;
    }
    const key = info.routingKey;
    if (key === undefined || key === '') {
      this.#map.countBranch('no_routing_id');
      return this.assign(available);
    }
    return this.#map.route(namespacedKey(key, info.leg), available, info, this);
  }

  /** Assigner: `available` is already filtered by select. */
  assign(available: readonly Worker[]): Worker | undefined {
    return assignByMode(this.#mode, available, this.#random, this.#keysFor);
  }

  onWorkerRemoved(worker: Worker): void {
    this.#map.forgetWorker(worker.key);
  }

  close(): void {
    this.#map.close();
  }
}
