/**
 * `--routing-key-override`: the manual policy's sticky map on top of any policy. The key is the
 * body `rid` with its turn and retry suffixes stripped (`conv_t2_r1` → `conv`), so every turn and
 * retry of a conversation lands where its KV cache is; else the routing key from the headers. The
 * default mode is `delegate`: a new key is routed by the wrapped policy and then pinned. A request
 * with no key goes straight to the wrapped policy.
 */
import type { Counter } from 'prom-client';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import type { Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { assignByMode } from './assignment.js';
import type { AssignmentMode } from './names.js';
import type { PolicyConfig } from './policy-config.js';
import type { Policy, SelectInfo } from './policy.js';
import { namespacedKey, StickyMap, type Assigner } from './sticky-map.js';

export interface StickyOverrideDeps {
  readonly random: Random;
  readonly clock: Clock;
  readonly metrics: GatewayMetrics;
  readonly config: PolicyConfig;
}

export type RoutingKeySource = 'rid' | 'header' | 'none';

/** `conv_t2_r1` → `conv`: drop a trailing `_r<n>` (retry), then a trailing `_t<n>` (turn). */
export function stickyKeyFromRid(rid: string): string {
  const key = rid.replace(/_r\d+$/, '').replace(/_t\d+$/, '');
  return key === '' ? rid : key;
}

export class StickyOverridePolicy implements Policy, Assigner {
  readonly #map: StickyMap;
  readonly #mode: AssignmentMode;
  readonly #random: Random;
  readonly #sources: Record<RoutingKeySource, Counter.Internal>;
  readonly #keysFor = (workerKey: string): number => this.#map.keysFor(workerKey);

  constructor(
    readonly inner: Policy,
    deps: StickyOverrideDeps,
  ) {
    this.#random = deps.random;
    this.#mode = deps.config.assignmentMode ?? 'delegate';
    this.#map = new StickyMap({
      clock: deps.clock,
      metrics: deps.metrics,
      evictionIntervalSecs: deps.config.evictionIntervalSecs,
      maxIdleSecs: deps.config.maxIdleSecs,
    });
    const c = deps.metrics.routingKeySource;
    this.#sources = {
      rid: c.labels({ source: 'rid' }),
      header: c.labels({ source: 'header' }),
      none: c.labels({ source: 'none' }),
    };
  }

  /** The wrapped policy's name: selections are still that policy's, with sessions pinned on top. */
  get name(): Policy['name'] {
    return this.inner.name;
  }

  get stickyMap(): StickyMap {
    return this.#map;
  }

  select(candidates: CandidateSet, info: SelectInfo): Worker | undefined {
    let key: string | undefined;
    if (info.rid !== undefined && info.rid !== '') {
      key = stickyKeyFromRid(info.rid);
      this.#sources.rid.inc();
    } else if (info.routingKey !== undefined && info.routingKey !== '') {
      key = info.routingKey;
      this.#sources.header.inc();
    } else {
      this.#sources.none.inc();
      this.#map.countBranch('no_routing_id');
      return this.inner.select(candidates, info);
    }
    return this.#map.route(namespacedKey(key, info.leg), candidates, info, this);
  }

  /** Assigner for a key with no available pinned worker. */
  assign(candidates: CandidateSet, info: SelectInfo): Worker | undefined {
    if (this.#mode === 'delegate') return this.inner.select(candidates, info);
    return assignByMode(this.#mode, candidates.available, this.#random, this.#keysFor);
  }

  onWorkerRemoved(worker: Worker): void {
    this.#map.forgetWorker(worker.key);
    this.inner.onWorkerRemoved?.(worker);
  }

  close(): void {
    this.#map.close();
    this.inner.close?.();
  }
}

/** Wraps any policy with `--routing-key-override` sticky sessions. */
export function withStickyOverride(inner: Policy, deps: StickyOverrideDeps): Policy {
  return new StickyOverridePolicy(inner, deps);
}
