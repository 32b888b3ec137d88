/**
 * cache_aware (SMG `cache_aware.rs`): route a prompt to a worker that probably holds its prefix in
 * KV cache, judged by a per-model radix tree of what was sent where, unless that would pile load
 * onto one worker.
 *
 * Per request, over the available workers (ready, circuit allows, not overloaded):
 *  1. read the mean in-flight load and the min-load worker, keyed `(load, processed, index)`,
 *     from the candidate set, which keeps both as leases come and go (available-load.ts);
 *  2. KV gate: with engine reports, if the hottest KV usage > `overloadTokenUsageThreshold` or
 *     the spread > `balanceTokenUsageThreshold`, take the min-load worker (both default to 1.0,
 *     which is off) and still record the prompt under it;
 *  3. match the prompt in the tree; if `matched / input > cacheThreshold` (strictly), pick the
 *     least-loaded available tenant of the matched node (random among equals), then spill to the
 *     min-load worker if that tenant's load is over the gate — `load > avg · rel` AND
 *     `load > avg + abs` — which also makes it a tenant, so hot prefixes replicate; otherwise
 *     (a miss) take the min-load worker;
 *  4. insert the prompt under the chosen worker, in the same descent as the match.
 * When the match is a hit but no tenant is available, nothing is inserted and the first
 * available worker is taken, as SMG.
 *
 * Cost: O(prompt) for the tree, plus the matched node's tenants on a hit (each is looked up by
 * key), never a pass over every worker. The KV gate is off while both thresholds are >= 1.0
 * (usage is a fraction, config/policy-bounds.ts); when on, its usage range is computed again
 * only after the available list or some engine report changed.
 *
 * Tokens: when `x-smg-routing-tokens` is given, a second tree keyed by token ids is used (SMG's
 * TokenTree). Each id is stored as two UTF-16 units (high, low 16 bits), so the same character
 * tree serves; matched tokens = ⌊matched units / 2⌋. Unlike SMG the token tree is not
 * page-aligned to `--block-size`. Its size bound is `maxTreeSize` tokens.
 */
import type { Gauge } from 'prom-client';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import { every } from '../util/every.js';
import { randomIndex, type Random } from '@switchyard/kit';
import type { CandidateSet } from '../workers/candidate-set.js';
import { meanTokenUsage } from '../workers/load-snapshot.js';
import type { Worker } from '../workers/worker.js';
import type { PolicyConfig } from './policy-config.js';
import type { Policy, SelectInfo } from './policy.js';
import { RadixTree } from './radix-tree.js';

export interface CacheAwareDeps {
  readonly random: Random;
  readonly clock: Clock;
  readonly metrics: GatewayMetrics;
  readonly config: PolicyConfig;
}

export class CacheAwarePolicy implements Policy {
  readonly name = 'cache_aware' as const;
  readonly #strings: RadixTree;
  readonly #tokens: RadixTree;
  readonly #config: PolicyConfig;
  readonly #random: Random;
  readonly #charsGauge: Gauge.Internal<'model'>;
  readonly #stringTenantsGauge: Gauge.Internal<'model' | 'tree'>;
  readonly #tokenTenantsGauge: Gauge.Internal<'model' | 'tree'>;
  readonly #removeGauges: () => void;
  #stopEviction: (() => void) | undefined;
  /** Last values set on the chars, string-tenants and token-tenants gauges. */
  readonly #published = [-1, -1, -1];
  /** False while both KV thresholds are >= 1.0: usage is a fraction, so the gate cannot fire. */
  readonly #kvGate: boolean;
  /** The KV gate's last answer, for this available list and report version. */
  #kvOf: readonly Worker[] | undefined;
  #kvVersion = 0;
  #kvPressed = false;
  // Per-selection state read by #choose, so the tree's chooser is one long-lived function.
  #candidates: CandidateSet | undefined;
  #minLoad: Worker | undefined;
  #avgLoad = 0;
  #inputItems = 0;
  #unitsPerItem = 1;
  #chosen: Worker | undefined;

  constructor(model: string, deps: CacheAwareDeps) {
    this.#config = deps.config;
    this.#kvGate =
      deps.config.overloadTokenUsageThreshold < 1 || deps.config.balanceTokenUsageThreshold < 1;
    this.#random = deps.random;
    this.#strings = new RadixTree(deps.clock);
    this.#tokens = new RadixTree(deps.clock);
    const { cacheTreeChars, cacheTreeTenants } = deps.metrics;
    this.#charsGauge = cacheTreeChars.labels({ model });
    this.#stringTenantsGauge = cacheTreeTenants.labels({ model, tree: 'string' });
    this.#tokenTenantsGauge = cacheTreeTenants.labels({ model, tree: 'token' });
    this.#removeGauges = () => {
      cacheTreeChars.remove({ model });
      cacheTreeTenants.remove({ model, tree: 'string' });
      cacheTreeTenants.remove({ model, tree: 'token' });
    };
    const intervalMs = deps.config.evictionIntervalSecs * 1000;
    if (intervalMs > 0) {
      this.#stopEviction = every(deps.clock, intervalMs, () => this.evict());
    }
  }

  select(candidates: CandidateSet, info: SelectInfo): Worker | undefined {
    const available = candidates.available;
    if (available.length === 0) return undefined;
    const minLoad = candidates.leastLoaded() as Worker;

    const tokens = info.tokens;
    const useTokens = tokens !== undefined && tokens.length > 0;
    const tree = useTokens ? this.#tokens : this.#strings;
    const key = useTokens ? encodeTokens(tokens) : info.text;

    if (this.#kvGate && this.#kvPressure(candidates)) {
      tree.insert(key, minLoad.key);
      this.#publish();
      return minLoad;
    }

    this.#candidates = candidates;
    this.#minLoad = minLoad;
    this.#avgLoad = candidates.availableLoad() / available.length;
    this.#unitsPerItem = useTokens ? 2 : 1;
    this.#inputItems = useTokens ? tokens.length : key.length;
    this.#chosen = undefined;
    tree.matchAndInsert(key, this.#choose);
    const chosen = this.#chosen ?? available[0];
    this.#candidates = undefined;
    this.#minLoad = undefined;
    this.#chosen = undefined;
    this.#publish();
    return chosen;
  }

  /** Removes the worker's prefixes from both trees (SMG purges the tenant on worker removal). */
  onWorkerRemoved(worker: Worker): void {
    this.#strings.removeTenant(worker.key);
    this.#tokens.removeTenant(worker.key);
    this.#publish();
  }

  /** One eviction pass (normally run by the timer): both trees down to `maxTreeSize`. */
  evict(): void {
    this.#strings.evictToSize(this.#config.maxTreeSize);
    this.#tokens.evictToSize(this.#config.maxTreeSize * 2);
    this.#publish();
  }

  close(): void {
    this.#stopEviction?.();
    this.#stopEviction = undefined;
    this.#removeGauges();
    this.#published.fill(-1);
  }

  /** For tests and diagnostics: the character tree. */
  get stringTree(): RadixTree {
    return this.#strings;
  }

  /** For tests and diagnostics: the token tree (two units per token). */
  get tokenTree(): RadixTree {
    return this.#tokens;
  }

  /** SMG's KV imbalance gate over the available workers that have an engine report. */
  #kvPressure(candidates: CandidateSet): boolean {
    const available = candidates.available;
    const version = candidates.reportVersion;
    if (this.#kvOf === available && this.#kvVersion === version) return this.#kvPressed;
    let max = -Infinity;
    let min = Infinity;
    for (const w of available) {
      if (w.loadSnapshot === undefined) continue;
      const usage = meanTokenUsage(w.loadSnapshot);
      if (usage > max) max = usage;
      if (usage < min) min = usage;
    }
    this.#kvOf = available;
    this.#kvVersion = version;
    this.#kvPressed =
      max !== -Infinity &&
      (max > this.#config.overloadTokenUsageThreshold ||
        max - min > this.#config.balanceTokenUsageThreshold);
    return this.#kvPressed;
  }

  /** The tree's chooser: decides the worker from the match, returns the tenant to insert. */
  readonly #choose = (
    matched: number,
    tenants: ReadonlyMap<string, number> | undefined,
  ): string | undefined => {
    const minLoad = this.#minLoad as Worker;
    const matchedItems = Math.floor(matched / this.#unitsPerItem);
    const rate = this.#inputItems === 0 ? 0 : matchedItems / this.#inputItems;
    if (rate <= this.#config.cacheThreshold || tenants === undefined) {
      this.#chosen = minLoad;
      return minLoad.key;
    }
    const candidates = this.#candidates as CandidateSet;
    let best: Worker | undefined;
    let ties = 0;
    for (const tenant of tenants.keys()) {
      const w = candidates.byKey(tenant);
      if (w === undefined || !w.isAvailable()) continue;
      if (best === undefined || w.load < best.load) {
        best = w;
        ties = 1;
      } else if (w.load === best.load) {
        ties++;
        if (randomIndex(this.#random, ties) === 0) best = w;
      }
    }
    if (best === undefined) return undefined;
    const avg = this.#avgLoad;
    const { balanceRelThreshold, balanceAbsThreshold } = this.#config;
    if (best.load > avg * balanceRelThreshold && best.load > avg + balanceAbsThreshold)
      best = minLoad;
    this.#chosen = best;
    return best.key;
  };

  /** Updates the gauges, touching prom-client only on change (a set costs ~200 ns). */
  #publish(): void {
    const chars = this.#strings.totalChars;
    const stringTenants = this.#strings.tenantCount;
    const tokenTenants = this.#tokens.tenantCount;
    if (chars !== this.#published[0]) this.#charsGauge.set((this.#published[0] = chars));
    if (stringTenants !== this.#published[1])
      this.#stringTenantsGauge.set((this.#published[1] = stringTenants));
    if (tokenTenants !== this.#published[2])
      this.#tokenTenantsGauge.set((this.#published[2] = tokenTenants));
  }
}

/** Token ids as a string of two UTF-16 units each (high 16 bits, then low), order-preserving. */
export function encodeTokens(tokens: readonly number[]): string {
  const units = new Array<number>(tokens.length * 2);
  for (let i = 0; i < tokens.length; i++) {
    const t = (tokens[i] ?? 0) >>> 0;
    units[2 * i] = t >>> 16;
    units[2 * i + 1] = t & 0xffff;
  }
  return String.fromCharCode(...units);
}
