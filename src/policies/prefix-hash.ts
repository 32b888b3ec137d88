/**
 * prefix_hash (SMG `prefix_hash.rs`): a cheap stand-in for cache_aware that hashes the request's
 * head onto the consistent-hash ring, with a bounded-load check.
 *
 * Key: the routing key if present; else the first `prefixTokenCount` tokens; else the first
 * `prefixTokenCount × 4` characters of the routing text (UTF-16 code units here). SMG hashes the
 * key with xxh3_64; Node has no xxh3, so this uses FNV-1a 64 (hash.ts), formatted the same way as
 * 16 hex digits and then placed on the ring. `--cache-boundaries` (multi-level keys) is not in
 * PolicyConfig, so there is exactly one level.
 *
 * Overload check: with `avg = (total_load + 1) / n_eligible`, a worker is OK when
 * `load ≤ max(avg · load_factor, avg + abs_threshold)`; with no load at all everyone is OK.
 * That check sums the load of every eligible worker, so a selection is O(n) (the ring lookup
 * itself is O(log n)).
 */
import type { Counter } from 'prom-client';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { CandidateRing } from './candidate-ring.js';
import { fnv1a64Text, fnv1a64Tokens } from './hash.js';
import type { PolicyConfig } from './policy-config.js';
import type { Policy, SelectInfo } from './policy.js';

export type PrefixHashBranch =
  | 'no_healthy_workers'
  | 'no_routing_key'
  | 'ring_hit'
  | 'load_balance_walk'
  | 'fallback_least_load';

/** SMG's rule of thumb: four characters of English text per token. */
const CHARS_PER_TOKEN = 4;

export class PrefixHashPolicy implements Policy {
  readonly name = 'prefix_hash' as const;
  readonly #ring = new CandidateRing();
  readonly #branches: Record<PrefixHashBranch, Counter.Internal>;

  constructor(
    private readonly config: Pick<
      PolicyConfig,
      'prefixTokenCount' | 'prefixHashLoadFactor' | 'prefixHashBalanceAbsThreshold'
    >,
    metrics: GatewayMetrics,
  ) {
    const c = metrics.prefixHashBranch;
    this.#branches = {
      no_healthy_workers: c.labels({ branch: 'no_healthy_workers' }),
      no_routing_key: c.labels({ branch: 'no_routing_key' }),
      ring_hit: c.labels({ branch: 'ring_hit' }),
      load_balance_walk: c.labels({ branch: 'load_balance_walk' }),
      fallback_least_load: c.labels({ branch: 'fallback_least_load' }),
    };
  }

  select(candidates: CandidateSet, info: SelectInfo): Worker | undefined {
    const eligible = candidates.eligible;
    if (eligible.length === 0) return this.#done('no_healthy_workers', undefined);
    const key = this.#key(info);
    // Nothing to hash: stay serviceable on load alone, as SMG.
    if (key === undefined) return this.#done('no_routing_key', leastLoaded(eligible));

    let total = 0;
    for (const w of eligible) total += w.load;
    const ok = this.#okBound(total, eligible.length);

    this.#ring.sync(candidates.all);
    const target = this.#ring.lookupEligible(key);
    if (target === undefined) return this.#done('fallback_least_load', leastLoaded(eligible));
    if (target.load <= ok) return this.#done('ring_hit', target);
    // The ring's choice is overloaded: the least-loaded worker that is not, else the target anyway.
    let best: Worker | undefined;
    for (const w of eligible)
      if (w.load <= ok && (best === undefined || w.load < best.load)) best = w;
    return this.#done('load_balance_walk', best ?? target);
  }

  /** The ring key: the hashed head of the request, as 16 hex digits; undefined if there is none. */
  #key(info: SelectInfo): string | undefined {
    if (info.routingKey !== undefined && info.routingKey !== '')
      return fnv1a64Text(info.routingKey);
    const tokens = info.tokens;
    if (tokens !== undefined && tokens.length > 0)
      return fnv1a64Tokens(tokens, this.config.prefixTokenCount);
    const text = info.text;
    if (text.length > 0) return fnv1a64Text(text, this.config.prefixTokenCount * CHARS_PER_TOKEN);
    return undefined;
  }

  /** The highest load that still passes the overload check. */
  #okBound(totalLoad: number, n: number): number {
    if (totalLoad === 0) return Infinity;
    const avg = (totalLoad + 1) / n;
    return Math.max(
      avg * this.config.prefixHashLoadFactor,
      avg + this.config.prefixHashBalanceAbsThreshold,
    );
  }

  #done(branch: PrefixHashBranch, worker: Worker | undefined): Worker | undefined {
    this.#branches[branch].inc();
    return worker;
  }
}

/** The first worker with the lowest in-flight load (Rust `min_by_key` keeps the first minimum). */
function leastLoaded(workers: readonly Worker[]): Worker | undefined {
  let best: Worker | undefined;
  for (const w of workers) if (best === undefined || w.load < best.load) best = w;
  return best;
}
