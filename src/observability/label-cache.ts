/**
 * Metric children for the hot path that work out their series key once. prom-client's own
 * children do not: `Counter.labels()` binds `inc` to the label object and `Histogram.labels()`
 * wraps `observe`, so each call still checks every label name, rebuilds the label-hash string
 * and looks the series up by it (node_modules/prom-client/lib/counter.js, histogram.js), which
 * bench/micro/request-path.bench.ts measures at about as much as `inc(labels)` itself.
 *
 * These children keep the key and update prom-client's series record in place, exactly as its
 * `inc`/`observe` would. That reads prom-client 15's internal `hashMap` (pinned exactly in
 * package.json); test/unit/observability/label-cache.test.ts compares the exposition with
 * prom-client's own calls, so an upgrade that changes the internals fails there. The first use of
 * a series, any use after `reset()` or `remove()` dropped it, and any value prom-client would
 * refuse go through prom-client's own call.
 */
import type { Counter, Gauge, Histogram, LabelValues } from 'prom-client';

export interface CounterChild {
  inc(value?: number): void;
}

export interface HistogramChild {
  observe(value: number): void;
}

export interface GaugeChild {
  set(value: number): void;
  inc(value?: number): void;
  dec(value?: number): void;
}

/** The parts of prom-client 15's Counter and Histogram these children use (lib/metric.js). */
interface Internals<Series> {
  hashMap: Record<string, Series | undefined>;
  sortedLabelNames: readonly string[];
  enableExemplars: boolean;
}

/** A counter's or a gauge's series record. */
interface ValueSeries {
  value: number;
}

interface HistogramSeries {
  sum: number;
  count: number;
  bucketValues: Record<string, number>;
}

/** prom-client's `hashObject(labels, sortedLabelNames)` (lib/util.js): the series key. */
function seriesKey(
  sortedNames: readonly string[],
  labels: Partial<Record<string, string | number>>,
): string {
  let key = '';
  for (const name of sortedNames) {
    const value = labels[name];
    if (value !== undefined) key += `${name}:${String(value)},`;
  }
  return key;
}

function internalsOf<Series>(metric: object): Internals<Series> {
  const internals = metric as Internals<Series>;
  // An exemplar metric takes `inc`/`observe` arguments of another shape; none is defined here.
  if (internals.enableExemplars) throw new Error('label-cache: exemplar metrics are not supported');
  return internals;
}

/** A child of `counter` for one label set; `inc` costs a keyed read and an add. */
export function counterChild<T extends string>(
  counter: Counter<T>,
  labels: LabelValues<T>,
): CounterChild {
  const internals = internalsOf<ValueSeries>(counter);
  // Copied, so a caller reusing its object cannot change the series behind the child's key.
  const own = { ...labels };
  const key = seriesKey(internals.sortedLabelNames, own);
  return {
    inc(value = 1): void {
      const series = internals.hashMap[key];
      if (series !== undefined && value >= 0 && Number.isFinite(value)) series.value += value;
      else counter.inc(own, value);
    },
  };
}

/** A child of `histogram` for one label set; `observe` costs a keyed read and a bucket scan. */
export function histogramChild<T extends string>(
  histogram: Histogram<T>,
  labels: LabelValues<T>,
): HistogramChild {
  const internals = internalsOf<HistogramSeries>(histogram);
  const own = { ...labels };
  const key = seriesKey(internals.sortedLabelNames, own);
  const bounds = (histogram as unknown as { upperBounds: readonly number[] }).upperBounds;
  // prom-client indexes `bucketValues` by the bound itself, i.e. by its string form.
  const bucketKeys = bounds.map(String);
  return {
    observe(value: number): void {
      const series = internals.hashMap[key];
      if (series === undefined || !Number.isFinite(value)) {
        histogram.observe(own, value);
        return;
      }
      let i = 0;
      while (i < bounds.length && value > (bounds[i] as number)) i++;
      series.sum += value;
      series.count += 1;
      // Past the last bound only the sum and count move: `+Inf` is exported as the count.
      const bucket = bucketKeys[i];
      if (bucket !== undefined)
        series.bucketValues[bucket] = (series.bucketValues[bucket] ?? 0) + 1;
    },
  };
}

/** A child of `gauge` for one label set (`{}` for a gauge without labels). */
export function gaugeChild<T extends string>(gauge: Gauge<T>, labels: LabelValues<T>): GaugeChild {
  const internals = internalsOf<ValueSeries>(gauge);
  const own = { ...labels };
  const key = seriesKey(internals.sortedLabelNames, own);
  const add = (delta: number): void => {
    const series = internals.hashMap[key];
    if (series !== undefined && typeof delta === 'number') series.value += delta;
    else gauge.inc(own, delta);
  };
  return {
    set(value: number): void {
      const series = internals.hashMap[key];
      if (series !== undefined && typeof value === 'number') series.value = value;
      else gauge.set(own, value);
    },
    inc: (value = 1) => add(value),
    dec: (value = 1) => add(-value),
  };
}
