/**
 * What the dashboard page receives: one `DashboardFrame` about once a second over server-sent
 * events. A frame is computed from the gateway's own metrics exposition (the same text
 * `/metrics` serves), so the page shows exactly what Prometheus would scrape, and a `--workers N`
 * primary, which holds only the aggregated metrics, serves the same page.
 *
 * The stream (`GET <dashboard path>/events`, `text/event-stream`):
 *   - `event: history` once on connect: `data` is a JSON array of the frames the gateway kept
 *     (the last few minutes, oldest first), so a page opened late still draws its plots;
 *   - `event: frame` about every second: `data` is one JSON `DashboardFrame`.
 * The page keeps its own history from there. Numbers are plain JSON numbers; `null` means "not
 * known" (no series, or no sample in the window), never zero.
 */

/** A worker's row in the fleet table. */
export interface WorkerRow {
  /** The worker's key as the metrics label it (its URL, plus `@rank` for a DP rank). */
  readonly worker: string;
  /** `regular`, `prefill` or `decode`; null when the worker has no `smg_worker_info` series. */
  readonly type: string | null;
  /** `sglang`, `vllm`, `tokenspeed`, … as the worker was registered; null when unknown. */
  readonly runtime: string | null;
  /** `http` or `grpc`; null when unknown. */
  readonly connectionMode: string | null;
  /** The worker's primary model; null when unknown. */
  readonly model: string | null;
  /** `smg_worker_health`: true healthy, false unhealthy, null not reported. */
  readonly healthy: boolean | null;
  /** `smg_worker_cb_state`: closed / open / half_open; null without a breaker series. */
  readonly circuit: 'closed' | 'open' | 'half_open' | null;
  /** `smg_worker_requests_active`: requests the gateway has in flight on the worker. */
  readonly inflight: number;
  /** Decode workers: the engine's running window decode claims are held against (`smg_pd_admission_window`). */
  readonly window: number | null;
  /** Decode workers: bootstrap rooms claimed now (`smg_pd_admission_claimed_rooms`). */
  readonly claimedRooms: number | null;
  /** Prefill workers: admission slots held now (`smg_pd_prefill_admission_inflight`). */
  readonly prefillInflight: number | null;
  /** Prefill workers: the per-worker slot limit (`smg_pd_prefill_admission_limit`); null when off. */
  readonly prefillLimit: number | null;
  /** The engine's own load report, summed over its DP ranks (token usage and hit rate averaged). */
  readonly engine: EngineLoad | null;
}

export interface EngineLoad {
  readonly running: number;
  readonly waiting: number;
  /** KV cache usage, 0–1. */
  readonly tokenUsage: number;
  /** Generation throughput, tokens/s. */
  readonly genThroughput: number;
  /** Prefix-cache hit rate, 0–1. */
  readonly cacheHitRate: number;
}

/** Percentiles of a latency histogram over the last `PERCENTILE_WINDOW_S` seconds, in seconds. */
export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  /** Observations the percentiles were computed from. */
  readonly count: number;
}

/** One router of the multi-model (`--enable-igw`) manager: its weight and traffic. */
export interface RouterRow {
  readonly model: string;
  /** The router's id as `smg_router_weight` labels it (e.g. `http-regular`, `http-pd`). */
  readonly routerType: string;
  /** `smg_router_weight`; null when the router reports no weight. */
  readonly weight: number | null;
  /** Requests per second sent to this router (`smg_router_selection_total`). */
  readonly selectionsPerS: number;
}

export interface DashboardFrame {
  /** Unix time of the sample, ms. */
  readonly t: number;
  /** Seconds since the previous sample: the interval the per-second rates cover. */
  readonly intervalS: number;
  /** Every worker any series names, sorted by type then key. */
  readonly workers: readonly WorkerRow[];
  readonly prefill: {
    /** Requests waiting for a prefill slot (`smg_pd_prefill_admission_queued`, all workers). */
    readonly queued: number;
    /** Prefill admission waits over the percentile window; null without any. */
    readonly wait: Percentiles | null;
    /** Rejections per second (`smg_pd_prefill_admission_rejections_total`). */
    readonly rejectionsPerS: number;
  };
  readonly decode: {
    /** Claims that waited for room, per second (`smg_pd_admission_waits_total`). */
    readonly waitsPerS: number;
    /** Claims shed because a window stayed full, per second (`smg_pd_admission_sheds_total`). */
    readonly shedsPerS: number;
  };
  /** Multi-model routers; empty when the gateway runs a single router. */
  readonly routers: readonly RouterRow[];
  readonly traffic: {
    /** Inference requests per second (`smg_router_requests_total`). */
    readonly requestsPerS: number;
    /**
     * Error responses per second by error code (`smg_http_responses_total`, status ≥ 400, probe
     * routes left out; a response without a code as `http_<status>`).
     */
    readonly errorsPerS: Readonly<Record<string, number>>;
    /**
     * Time to first token: `smg_router_ttft_seconds` (regular, streamed answers) with
     * `smg_pd_ttft_seconds` (PD); null without samples in the window.
     */
    readonly ttft: Percentiles | null;
    /** End-to-end request duration (`smg_router_request_duration_seconds`). */
    readonly e2e: Percentiles | null;
  };
}

/** How often the feed samples the metrics. */
export const FRAME_INTERVAL_MS = 1000;
/** The window the latency percentiles cover, so one slow second does not vanish at once. */
export const PERCENTILE_WINDOW_S = 10;
/** Frames the gateway keeps for a page that connects late (5 minutes). */
export const HISTORY_FRAMES = 300;
