/**
 * consistent_hashing (SMG `consistent_hashing.rs`). Priority:
 *   1. `x-smg-target-worker`: that candidate if it is eligible, otherwise no worker at all (the
 *      request fails; SMG deliberately has no fallback, so a pinned client sees the failure);
 *   2. the routing key (`x-smg-routing-key` or the configured headers): ring lookup;
 *   3. an implicit key, the first of `authorization`, `x-forwarded-for`, `cookie`: ring lookup;
 *   4. uniform random over the eligible workers.
 * Eligible = ready and not overloaded; the circuit breaker is ignored, as SMG.
 * Cost: O(log n) for a key (binary search on the ring, kept across requests), O(1) otherwise.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Counter } from 'prom-client';
import type { GatewayMetrics } from '../observability/metrics.js';
import { usableRoutingKey } from './routing-key.js';
import { randomIndex, type Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { CandidateRing } from './candidate-ring.js';
import type { Policy, SelectInfo } from './policy.js';

export type ConsistentHashingBranch =
  | 'no_healthy_workers'
  | 'target_worker_hit'
  | 'target_worker_miss'
  | 'routing_key_hit'
  | 'random_fallback';

const IMPLICIT_KEY_HEADERS = ['authorization', 'x-forwarded-for', 'cookie'] as const;

export class ConsistentHashingPolicy implements Policy {
  readonly name = 'consistent_hashing' as const;
  readonly #ring = new CandidateRing();
  readonly #branches: Record<ConsistentHashingBranch, Counter.Internal>;

  constructor(
    private readonly random: Random,
    metrics: GatewayMetrics,
  ) {
    const c = metrics.consistentHashingBranch;
    this.#branches = {
      no_healthy_workers: c.labels({ branch: 'no_healthy_workers' }),
      target_worker_hit: c.labels({ branch: 'target_worker_hit' }),
      target_worker_miss: c.labels({ branch: 'target_worker_miss' }),
      routing_key_hit: c.labels({ branch: 'routing_key_hit' }),
      random_fallback: c.labels({ branch: 'random_fallback' }),
    };
  }

  select(candidates: CandidateSet, info: SelectInfo): Worker | undefined {
    const all = candidates.all;
    if (all.length === 0) return this.#done('no_healthy_workers', undefined);

    if (info.targetWorker !== undefined) {
      const target = all[info.targetWorker];
      return target?.isHealthyAndEligible() === true
        ? this.#done('target_worker_hit', target)
        : this.#done('target_worker_miss', undefined);
    }

    // SMG reads the default header too when --routing-key-headers replaced it, with the same caps.
    const key =
      info.routingKey ??
      usableRoutingKey(headerValue(info.headers, 'x-smg-routing-key')) ??
      implicitKey(info.headers);
    if (key !== undefined) {
      this.#ring.sync(all);
      const worker = this.#ring.lookupEligible(key);
      return worker === undefined
        ? this.#done('no_healthy_workers', undefined)
        : this.#done('routing_key_hit', worker);
    }

    // An anonymous client: uniform over the eligible workers.
    const eligible = candidates.eligible;
    if (eligible.length === 0) return this.#done('no_healthy_workers', undefined);
    return this.#done('random_fallback', eligible[randomIndex(this.random, eligible.length)]);
  }

  #done(branch: ConsistentHashingBranch, worker: Worker | undefined): Worker | undefined {
    this.#branches[branch].inc();
    return worker;
  }
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** SMG's session affinity for clients that send no key: stable identity headers, in order. */
export function implicitKey(headers: IncomingHttpHeaders): string | undefined {
  for (const name of IMPLICIT_KEY_HEADERS) {
    const v = headerValue(headers, name);
    if (v !== undefined) return v;
  }
  return undefined;
}
