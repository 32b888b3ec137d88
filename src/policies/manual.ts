/**
 * manual (SMG `manual.rs`): sticky sessions by routing key. Unlike consistent_hashing, adding
 * workers never moves a session; a session moves only when its workers are unavailable, and keeps
 * up to two workers for fast failover. Requests without a key are assigned per mode
 * (`no_routing_id`). The mode defaults to `random`; `delegate` has no inner policy here and behaves
 * as `min_load`, as SMG.
 * Cost: O(1) for a known key and for `random` assignment; `min_load` and `min_group` assignment
 * compare every available worker (O(n)), only when a key is new or its workers are gone.
 */
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import type { Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { assignByMode, type DirectMode } from './assignment.js';
import type { PolicyConfig } from './policy-config.js';
import type { Policy, SelectInfo } from './policy.js';
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

  select(candidates: CandidateSet, info: SelectInfo): Worker | undefined {
    if (candidates.available.length === 0) {
      this.#map.countBranch('no_healthy_workers');
      return undefined;
    }
    const key = info.routingKey;
    if (key === undefined || key === '') {
      this.#map.countBranch('no_routing_id');
      return this.assign(candidates);
    }
    return this.#map.route(namespacedKey(key, info.leg), candidates, info, this);
  }

  /** Assigner: a worker by mode among the available candidates. */
  assign(candidates: CandidateSet): Worker | undefined {
    return assignByMode(this.#mode, candidates.available, this.#random, this.#keysFor);
  }

  onWorkerRemoved(worker: Worker): void {
    this.#map.forgetWorker(worker.key);
  }

  close(): void {
    this.#map.close();
  }
}
