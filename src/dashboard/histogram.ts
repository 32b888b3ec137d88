/**
 * Percentiles of a Prometheus histogram over a window, from two cumulative readings of its
 * `_bucket` series: the same linear interpolation inside a bucket that PromQL's
 * `histogram_quantile` does, so the dashboard and a Grafana panel agree.
 */
import type { Percentiles } from './frame.js';
import type { Samples } from './exposition.js';

/**
 * Cumulative counts by upper bound (`le`), summed over every other label and over the families
 * (which must share their buckets), sorted by bound.
 */
export type Buckets = readonly (readonly [le: number, count: number])[];

export function readBuckets(samples: Samples, families: readonly string[]): Buckets {
  const byLe = new Map<number, number>();
  for (const s of families.flatMap((family) => samples.get(`${family}_bucket`) ?? [])) {
    const raw = s.labels.le;
    if (raw === undefined) continue;
    const le = raw === '+Inf' ? Infinity : Number(raw);
    if (Number.isNaN(le)) continue;
    byLe.set(le, (byLe.get(le) ?? 0) + s.value);
  }
  return [...byLe].sort((a, b) => a[0] - b[0]);
}

/** The observations made between two readings (a reading missing a bound counts it as 0). */
export function bucketDelta(now: Buckets, before: Buckets): Buckets {
  const prior = new Map(before);
  // A process restart resets counts; a negative delta would only mislead, so it reads as none.
  return now.map(([le, count]) => [le, Math.max(0, count - (prior.get(le) ?? 0))] as const);
}

export function percentiles(delta: Buckets): Percentiles | null {
  const total = delta.at(-1)?.[1] ?? 0;
  if (total <= 0) return null;
  return {
    p50: quantile(delta, 0.5),
    p90: quantile(delta, 0.9),
    p99: quantile(delta, 0.99),
    count: total,
  };
}

function quantile(buckets: Buckets, q: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      // In the +Inf bucket the answer is the highest finite bound, as PromQL answers.
      if (le === Infinity) return lowerBound;
      if (count === lowerCount) return le;
      return lowerBound + ((le - lowerBound) * (rank - lowerCount)) / (count - lowerCount);
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}
