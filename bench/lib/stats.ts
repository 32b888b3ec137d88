// Percentiles and small summaries for benchmark samples. Percentiles use the nearest-rank method
// on a sorted copy: with a few hundred samples per run, interpolation would only invent precision.

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN when there are none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  return percentileSorted(sortedCopy(values), p);
}

export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
  return sorted[rank - 1] ?? Number.NaN;
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  // A typed array sorts numerically without a comparator call per pair.
  return Float64Array.from(values).sort();
}

export function mean(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] ?? 0;
  return sum / values.length;
}

/** Median of a handful of per-run values (the unit of "medians of ≥3 runs"). */
export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return Number.NaN;
  const s = [...finite].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export interface Distribution {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function distribution(values: ArrayLike<number>): Distribution {
  const s = sortedCopy(values);
  return {
    count: s.length,
    mean: mean(s),
    p50: percentileSorted(s, 50),
    p90: percentileSorted(s, 90),
    p99: percentileSorted(s, 99),
    max: s.length > 0 ? (s[s.length - 1] ?? Number.NaN) : Number.NaN,
  };
}

/** A growable Float64Array: millions of stream gaps without boxing each number. */
export class SampleBuffer {
  #data = new Float64Array(1024);
  #length = 0;

  push(v: number): void {
    if (this.#length === this.#data.length) {
      const next = new Float64Array(this.#data.length * 2);
      next.set(this.#data);
      this.#data = next;
    }
    this.#data[this.#length++] = v;
  }

  get length(): number {
    return this.#length;
  }

  values(): Float64Array {
    return this.#data.subarray(0, this.#length);
  }
}

/** Rounds to `digits` decimals for display and JSON (NaN stays NaN; JSON writes it as null). */
export function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
