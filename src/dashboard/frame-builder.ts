/**
 * Turns successive readings of the metrics into dashboard frames: gauges are read as they are,
 * counters become per-second rates against the previous reading, and latency histograms become
 * percentiles over the last PERCENTILE_WINDOW_S seconds.
 */
import type { Labels, Sample, Samples } from './exposition.js';
import {
  PERCENTILE_WINDOW_S,
  type DashboardFrame,
  type EngineLoad,
  type Percentiles,
  type RouterRow,
  type WorkerRow,
} from './frame.js';
import { bucketDelta, percentiles, readBuckets, type Buckets } from './histogram.js';

/** The latency histograms a frame reports, by the frame field they feed. */
const HISTOGRAMS = {
  // The regular router observes its streamed answers, PD every answer: together, every TTFT.
  ttft: ['smg_router_ttft_seconds', 'smg_pd_ttft_seconds'],
  e2e: ['smg_router_request_duration_seconds'],
  prefillWait: ['smg_pd_prefill_admission_wait_seconds'],
} as const;
type HistogramKey = keyof typeof HISTOGRAMS;

interface Reading {
  readonly t: number;
  readonly samples: Samples;
  readonly buckets: Readonly<Record<HistogramKey, Buckets>>;
}

/** A 503 from a probe says "not ready yet", which is the probe's answer, not a failed request. */
const PROBE_PATHS = new Set(['/health', '/liveness', '/readiness', '/health_generate']);
const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
const TYPE_ORDER = ['regular', 'prefill', 'decode'];

export class FrameBuilder {
  /** Readings of the last PERCENTILE_WINDOW_S seconds, oldest first. */
  #readings: Reading[] = [];

  /** The frame for a reading taken at `t` (unix ms). */
  next(samples: Samples, t: number): DashboardFrame {
    const reading: Reading = {
      t,
      samples,
      buckets: {
        ttft: readBuckets(samples, HISTOGRAMS.ttft),
        e2e: readBuckets(samples, HISTOGRAMS.e2e),
        prefillWait: readBuckets(samples, HISTOGRAMS.prefillWait),
      },
    };
    const previous = this.#readings.at(-1);
    // Keep the newest reading at least PERCENTILE_WINDOW_S old as the window's base.
    const cutoff = t - PERCENTILE_WINDOW_S * 1000;
    while (this.#readings.length > 1 && (this.#readings[1]?.t ?? Infinity) <= cutoff) {
      this.#readings.shift();
    }
    const base = this.#readings[0];
    this.#readings.push(reading);

    const intervalS = previous ? Math.max(0.001, (t - previous.t) / 1000) : 0;
    const rate = (family: string, keep?: (labels: Labels) => boolean): number => {
      if (!previous) return 0;
      const delta = sum(samples, family, keep) - sum(previous.samples, family, keep);
      return Math.max(0, delta) / intervalS;
    };
    const window = (key: HistogramKey): Percentiles | null =>
      base ? percentiles(bucketDelta(reading.buckets[key], base.buckets[key])) : null;

    return {
      t,
      intervalS,
      workers: workerRows(samples),
      prefill: {
        queued: sum(samples, 'smg_pd_prefill_admission_queued'),
        wait: window('prefillWait'),
        rejectionsPerS: rate('smg_pd_prefill_admission_rejections_total'),
      },
      decode: {
        waitsPerS: rate('smg_pd_admission_waits_total'),
        shedsPerS: rate('smg_pd_admission_sheds_total'),
      },
      routers: routerRows(samples, previous?.samples, intervalS),
      traffic: {
        requestsPerS: rate('smg_router_requests_total'),
        errorsPerS: errorRates(samples, previous?.samples, intervalS),
        ttft: window('ttft'),
        e2e: window('e2e'),
      },
    };
  }
}

function sum(samples: Samples, family: string, keep?: (labels: Labels) => boolean): number {
  let total = 0;
  for (const s of samples.get(family) ?? []) if (!keep || keep(s.labels)) total += s.value;
  return total;
}

/** Sums a family's values by one label. */
function byLabel(samples: Samples | undefined, family: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples?.get(family) ?? []) {
    const key = s.labels[label];
    if (key !== undefined) out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

function workerRows(samples: Samples): WorkerRow[] {
  const info = new Map<string, Labels>();
  for (const s of samples.get('smg_worker_info') ?? []) {
    if (s.labels.worker !== undefined && s.value > 0) info.set(s.labels.worker, s.labels);
  }
  const health = byLabel(samples, 'smg_worker_health', 'worker');
  const circuit = byLabel(samples, 'smg_worker_cb_state', 'worker');
  const inflight = byLabel(samples, 'smg_worker_requests_active', 'worker');
  const window = byLabel(samples, 'smg_pd_admission_window', 'worker');
  const claimed = byLabel(samples, 'smg_pd_admission_claimed_rooms', 'worker');
  const prefillInflight = byLabel(samples, 'smg_pd_prefill_admission_inflight', 'worker');
  const prefillLimit = sum(samples, 'smg_pd_prefill_admission_limit');
  const engines = engineLoads(samples);

  const keys = new Set([...info.keys(), ...health.keys(), ...inflight.keys(), ...circuit.keys()]);
  const rows = [...keys].map((worker): WorkerRow => {
    const labels = info.get(worker);
    const type = labels?.worker_type ?? null;
    const state = circuit.get(worker);
    const healthValue = health.get(worker);
    return {
      worker,
      type,
      runtime: labels?.runtime ?? null,
      connectionMode: labels?.connection_mode ?? null,
      model: labels?.model ?? null,
      healthy: healthValue === undefined ? null : healthValue > 0,
      circuit: state === undefined ? null : (CIRCUIT_STATES[state] ?? null),
      inflight: inflight.get(worker) ?? 0,
      window: window.get(worker) ?? null,
      claimedRooms: claimed.get(worker) ?? (window.has(worker) ? 0 : null),
      prefillInflight:
        prefillInflight.get(worker) ?? (type === 'prefill' && prefillLimit > 0 ? 0 : null),
      prefillLimit: type === 'prefill' && prefillLimit > 0 ? prefillLimit : null,
      engine: engines.get(worker) ?? null,
    };
  });
  const rank = (type: string | null): number => {
    const i = type === null ? -1 : TYPE_ORDER.indexOf(type);
    return i < 0 ? TYPE_ORDER.length : i;
  };
  return rows.sort((a, b) => rank(a.type) - rank(b.type) || a.worker.localeCompare(b.worker));
}

/** Each worker's engine report, summed over its DP ranks; usage and hit rate are averaged. */
function engineLoads(samples: Samples): Map<string, EngineLoad> {
  const field = (family: string): Map<string, readonly Sample[]> => {
    const out = new Map<string, Sample[]>();
    for (const s of samples.get(family) ?? []) {
      const key = s.labels.worker;
      if (key === undefined) continue;
      let list = out.get(key);
      if (!list) out.set(key, (list = []));
      list.push(s);
    }
    return out;
  };
  const running = field('smg_engine_running_requests');
  const waiting = field('smg_engine_waiting_requests');
  const usage = field('smg_engine_token_usage');
  const throughput = field('smg_engine_gen_throughput');
  const hitRate = field('smg_engine_cache_hit_rate');
  const total = (list: readonly Sample[] | undefined): number =>
    (list ?? []).reduce((a, s) => a + s.value, 0);
  const mean = (list: readonly Sample[] | undefined): number =>
    list && list.length > 0 ? total(list) / list.length : 0;
  const out = new Map<string, EngineLoad>();
  for (const [worker, list] of running) {
    out.set(worker, {
      running: total(list),
      waiting: total(waiting.get(worker)),
      tokenUsage: mean(usage.get(worker)),
      genThroughput: total(throughput.get(worker)),
      cacheHitRate: mean(hitRate.get(worker)),
    });
  }
  return out;
}

function routerRows(now: Samples, before: Samples | undefined, intervalS: number): RouterRow[] {
  const key = (l: Labels): string => `${l.model ?? ''}\u0000${l.router_type ?? ''}`;
  const rows = new Map<string, { model: string; routerType: string; weight: number | null }>();
  for (const s of now.get('smg_router_weight') ?? []) {
    rows.set(key(s.labels), {
      model: s.labels.model ?? '',
      routerType: s.labels.router_type ?? '',
      weight: s.value,
    });
  }
  const selections = (samples: Samples | undefined): Map<string, number> => {
    const out = new Map<string, number>();
    for (const s of samples?.get('smg_router_selection_total') ?? []) {
      out.set(key(s.labels), (out.get(key(s.labels)) ?? 0) + s.value);
      if (!rows.has(key(s.labels))) {
        rows.set(key(s.labels), {
          model: s.labels.model ?? '',
          routerType: s.labels.router_type ?? '',
          weight: null,
        });
      }
    }
    return out;
  };
  const current = selections(now);
  const prior = before ? selections(before) : current;
  return [...rows]
    .map(([k, row]) => ({
      ...row,
      selectionsPerS:
        before && intervalS > 0
          ? Math.max(0, (current.get(k) ?? 0) - (prior.get(k) ?? 0)) / intervalS
          : 0,
    }))
    .sort((a, b) => a.model.localeCompare(b.model) || a.routerType.localeCompare(b.routerType));
}

/** Error responses per second by error code; a code once seen stays (at 0) so its line can fall. */
function errorRates(
  now: Samples,
  before: Samples | undefined,
  intervalS: number,
): Record<string, number> {
  const byCode = (samples: Samples | undefined): Map<string, number> => {
    const out = new Map<string, number>();
    for (const s of samples?.get('smg_http_responses_total') ?? []) {
      const status = Number(s.labels.status_code);
      if (!(status >= 400) || PROBE_PATHS.has(s.labels.path ?? '')) continue;
      const code = s.labels.error_code || `http_${status}`;
      out.set(code, (out.get(code) ?? 0) + s.value);
    }
    return out;
  };
  const current = byCode(now);
  const prior = byCode(before);
  const out: Record<string, number> = {};
  for (const [code, count] of current) {
    out[code] =
      before && intervalS > 0 ? Math.max(0, count - (prior.get(code) ?? 0)) / intervalS : 0;
  }
  return out;
}
