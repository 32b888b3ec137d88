/**
 * The router-level metric series of the request path, made once per label set and reused:
 * requests, duration and TTFT per (backend, model, endpoint), worker selections per
 * (worker type, model, policy), upstream answers per status. Label values are bounded (models
 * no worker announces share the `other` label), so the caches stay small.
 */
import {
  counterChild,
  histogramChild,
  type CounterChild,
  type HistogramChild,
} from '../observability/label-cache.js';
import {
  CONNECTION_HTTP,
  ROUTER_TYPE_HTTP,
  type BackendType,
} from '../observability/metric-labels.js';
import type { GatewayMetrics } from '../observability/metrics.js';

/** The series of one (backend, model, endpoint). */
export class RouterSeries {
  readonly labels: {
    router_type: string;
    backend_type: string;
    connection_mode: string;
    model: string;
    endpoint: string;
  };
  readonly requestsStreaming: CounterChild;
  readonly requestsPlain: CounterChild;
  readonly duration: HistogramChild;
  readonly ttft: HistogramChild;

  constructor(
    metrics: GatewayMetrics,
    backend: BackendType,
    model: string,
    endpoint: string,
    connection: string = CONNECTION_HTTP,
  ) {
    // SMG's router_type label is the connection mode: "http" or "grpc".
    const routerType = connection === CONNECTION_HTTP ? ROUTER_TYPE_HTTP : connection;
    this.labels = {
      router_type: routerType,
      backend_type: backend,
      connection_mode: connection,
      model,
      endpoint,
    };
    this.requestsStreaming = counterChild(metrics.routerRequests, {
      ...this.labels,
      streaming: 'true',
    });
    this.requestsPlain = counterChild(metrics.routerRequests, {
      ...this.labels,
      streaming: 'false',
    });
    this.duration = histogramChild(metrics.routerDuration, this.labels);
    this.ttft = histogramChild(metrics.routerTtft, {
      router_type: routerType,
      backend_type: backend,
      model,
      endpoint,
    });
  }
}

/** The PD histograms of one (model, runtime): TTFT, prefill duration, KV transfer duration. */
export class PdSeries {
  readonly ttft: HistogramChild;
  readonly prefillDuration: HistogramChild;
  readonly kvTransferDuration: HistogramChild;

  constructor(metrics: GatewayMetrics, model: string, runtime: string) {
    const labels = { backend_type: 'pd', model, runtime };
    this.ttft = histogramChild(metrics.pdTtft, labels);
    this.prefillDuration = histogramChild(metrics.pdPrefillDuration, labels);
    this.kvTransferDuration = histogramChild(metrics.pdKvTransferDuration, labels);
  }
}

export class RouterSeriesCache {
  readonly #router = new Map<string, RouterSeries>();
  readonly #pd = new Map<string, PdSeries>();
  readonly #selection = new Map<string, CounterChild>();
  readonly #upstream = new Map<string, CounterChild>();

  constructor(private readonly metrics: GatewayMetrics) {}

  /** The request/duration/TTFT series of one backend, model and endpoint. */
  router(
    backend: BackendType,
    model: string,
    endpoint: string,
    connection: string = CONNECTION_HTTP,
  ): RouterSeries {
    const key = `${backend}\u0000${model}\u0000${endpoint}\u0000${connection}`;
    let series = this.#router.get(key);
    if (series === undefined) {
      series = new RouterSeries(this.metrics, backend, model, endpoint, connection);
      this.#router.set(key, series);
    }
    return series;
  }

  /** The PD histograms of one model and prefill runtime. */
  pd(model: string, runtime: string): PdSeries {
    const key = `${model}\u0000${runtime}`;
    let series = this.#pd.get(key);
    if (series === undefined) {
      series = new PdSeries(this.metrics, model, runtime);
      this.#pd.set(key, series);
    }
    return series;
  }

  /** `smg_worker_selection_total` for one worker type, model, policy and connection mode. */
  selection(
    workerType: string,
    model: string,
    policy: string,
    connection = CONNECTION_HTTP,
  ): CounterChild {
    const key = `${workerType}\u0000${model}\u0000${policy}\u0000${connection}`;
    let child = this.#selection.get(key);
    if (child === undefined) {
      child = counterChild(this.metrics.workerSelection, {
        worker_type: workerType,
        connection_mode: connection,
        model,
        policy,
      });
      this.#selection.set(key, child);
    }
    return child;
  }

  /** `smg_router_upstream_responses_total` for a worker's status (no gateway error code). */
  upstreamStatus(status: number, routerType: string = ROUTER_TYPE_HTTP): CounterChild {
    const key = `${routerType}\u0000${status}`;
    let child = this.#upstream.get(key);
    if (child === undefined) {
      child = counterChild(this.metrics.routerUpstreamResponses, {
        router_type: routerType,
        status_code: String(status),
        error_code: '',
      });
      this.#upstream.set(key, child);
    }
    return child;
  }
}

const caches = new WeakMap<GatewayMetrics, RouterSeriesCache>();

/** The one series cache of a metrics registry, shared by every router that reports into it. */
export function routerSeriesOf(metrics: GatewayMetrics): RouterSeriesCache {
  let cache = caches.get(metrics);
  if (cache === undefined) {
    cache = new RouterSeriesCache(metrics);
    caches.set(metrics, cache);
  }
  return cache;
}
