/**
 * The arithmetic of IGW router choice, kept pure so it is tested without a gateway: per-router
 * weights from a model's available worker counts, which endpoints each router serves, and the
 * weighted pick (SMG `router_manager.rs::pick_router_by_weights`).
 *
 * Every table is keyed by `RouterType`, so adding a router kind (gRPC regular/PD/EPD) fails to
 * compile until it has a weight rule, its worker types, its endpoint support and a walk position.
 */
import { ringPosition } from '../policies/hash.js';
import type { WorkerType } from '../workers/worker.js';
import type { Endpoint } from './endpoint.js';
import type { RouterType } from './router.js';

/**
 * `paired` (default): 2·min(P, D). A PD request holds one prefill and one decode worker, so a
 * pool's throughput is bounded by its scarcer side; equals P+D when balanced.
 * `sum`: P+D, SMG's formula, which over-weights an unbalanced PD pool.
 */
export const PD_WEIGHT_MODES = ['paired', 'sum'] as const;
export type PdWeightMode = (typeof PD_WEIGHT_MODES)[number];

/** Workers of one model by type: available ones for weights, registered ones for errors. */
export type PoolCounts = Readonly<Record<WorkerType, number>>;

/** Weight of each router kind for one model; 0 means the router takes none of its traffic. */
export type RouterWeights = Readonly<Record<RouterType, number>>;

export function emptyCounts(): Record<WorkerType, number> {
  return { regular: 0, prefill: 0, decode: 0 };
}

/** PD weight: zero unless at least one prefill and one decode worker are available. */
export function pdWeight(prefill: number, decode: number, mode: PdWeightMode): number {
  if (prefill <= 0 || decode <= 0) return 0;
  switch (mode) {
    case 'paired':
      return 2 * Math.min(prefill, decode);
    case 'sum':
      return prefill + decode;
  }
}

const WEIGHT_RULES: { readonly [T in RouterType]: (c: PoolCounts, mode: PdWeightMode) => number } =
  {
    'http-pd': (c, mode) => pdWeight(c.prefill, c.decode, mode),
    'http-regular': (c) => c.regular,
  };

/** Weights of every router kind from a model's available worker counts. */
export function routerWeights(available: PoolCounts, mode: PdWeightMode): RouterWeights {
  return {
    'http-pd': WEIGHT_RULES['http-pd'](available, mode),
    'http-regular': WEIGHT_RULES['http-regular'](available, mode),
  };
}

export function sameWeights(a: RouterWeights, b: RouterWeights): boolean {
  return ROUTER_ORDER.every((t) => a[t] === b[t]);
}

/** The worker types a router sends traffic to; used to tell 404 (none registered) from 503. */
export const ROUTER_WORKER_TYPES: { readonly [T in RouterType]: readonly WorkerType[] } = {
  'http-pd': ['prefill', 'decode'],
  'http-regular': ['regular'],
};

/**
 * Endpoints a router cannot serve, for routers that do not answer `supports()` themselves.
 * PD splits generation into a prompt pass and a decode pass; embeddings and rerank have no
 * decode pass, so a PD pair cannot answer them (SMG's PD router answers 501 for what it lacks).
 */
export const UNSUPPORTED_ENDPOINTS: { readonly [T in RouterType]: readonly Endpoint[] } = {
  'http-pd': ['embeddings', 'rerank'],
  'http-regular': [],
};

export function defaultSupports(type: RouterType, endpoint: Endpoint): boolean {
  return !UNSUPPORTED_ENDPOINTS[type].includes(endpoint);
}

/**
 * Order of the cumulative walk, SMG's (PD before regular). It matters for sticky keys: a key's
 * point stays put, so when PD weight grows only keys in the grown slice move to PD, and the
 * reverse when it shrinks.
 */
export const ROUTER_ORDER: readonly RouterType[] = ['http-pd', 'http-regular'];

/**
 * Picks a router with probability weight / total over the eligible routers, from a point `u`
 * in [0, 1). Integer walk as SMG's: floor(u·total) clamped, then cumulative weights. Returns
 * undefined when no eligible router has weight.
 */
export function pickWeighted(
  weights: RouterWeights,
  eligible: (type: RouterType) => boolean,
  u: number,
): RouterType | undefined {
  let total = 0;
  for (const type of ROUTER_ORDER) if (eligible(type)) total += weights[type];
  if (total <= 0) return undefined;
  const pick = Math.min(Math.floor(u * total), total - 1);
  let cumulative = 0;
  for (const type of ROUTER_ORDER) {
    if (!eligible(type)) continue;
    cumulative += weights[type];
    if (pick < cumulative) return type;
  }
  return undefined;
}

const TWO_POW_53 = 2 ** 53;

/**
 * A routing key's fixed point in [0, 1). Only the key is hashed, not the pool sizes: the key
 * keeps its pool while the sizes are unchanged, and when they change only the keys in the slice
 * that moved switch pools (hashing the sizes in would reshuffle about half of all keys on every
 * change, and every moved conversation loses its prefix cache). The salt keeps the point
 * independent of the same key's position on the consistent-hashing ring: unsalted, the keys
 * left to the regular pool would all sit on one arc of that ring and load its workers unevenly.
 */
export function stickyPoint(routingKey: string): number {
  return ringPosition(`igw-router\u0000${routingKey}`) / TWO_POW_53;
}
