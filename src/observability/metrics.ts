/**
 * Every Prometheus metric the gateway exports, defined in this one file with SMG's names, labels
 * and histogram buckets (`observability/metrics.rs`). Each gateway owns its own Registry so that
 * several gateways can live in one process (tests) without colliding.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FleetInfoMetrics } from './fleet-info-metrics.js';

/** SMG's buckets for every `*duration_seconds`, `*ttft_seconds` and `*tpot_seconds` histogram. */
export const DURATION_BUCKETS = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60, 90, 120, 180, 240,
  300, 480, 900, 1200, 1800, 2700, 3600, 5400, 7200,
];

const ROUTER_LABELS = [
  'router_type',
  'backend_type',
  'connection_mode',
  'model',
  'endpoint',
] as const;
const ENGINE_LABELS = ['worker', 'model', 'dp_rank'] as const;

export class GatewayMetrics {
  readonly registry = new Registry();
  /** Switchyard-only: what each worker is, its decode window, the prefill slot limit. */
  readonly fleetInfo = new FleetInfoMetrics(this.registry);

  // Layer 1: HTTP ingress
  readonly httpRequests = new Counter({
    name: 'smg_http_requests_total',
    help: 'HTTP requests received',
    labelNames: ['method', 'path'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'smg_http_request_duration_seconds',
    help: 'HTTP request duration, head to last byte',
    labelNames: ['method', 'path'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly httpResponses = new Counter({
    name: 'smg_http_responses_total',
    help: 'HTTP responses sent, by status and gateway error code',
    labelNames: ['path', 'status_code', 'error_code'],
    registers: [this.registry],
  });
  readonly httpConnectionsActive = new Gauge({
    name: 'smg_http_connections_active',
    help: 'Open client connections',
    registers: [this.registry],
  });
  /** Switchyard-only: the use of `--max-buffered-body-bytes`. */
  readonly httpBufferedBodyBytes = new Gauge({
    name: 'smg_http_buffered_body_bytes',
    help: 'Request-body bytes held in memory (charged as they arrive, until the response closes)',
    registers: [this.registry],
  });

  // Layer 2: router
  readonly routerRequests = new Counter({
    name: 'smg_router_requests_total',
    help: 'Requests routed',
    labelNames: [...ROUTER_LABELS, 'streaming'],
    registers: [this.registry],
  });
  readonly routerDuration = new Histogram({
    name: 'smg_router_request_duration_seconds',
    help: 'Routed request duration, selection to last byte',
    labelNames: ROUTER_LABELS,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly routerErrors = new Counter({
    name: 'smg_router_request_errors_total',
    help: 'Routed requests that ended in a gateway error',
    labelNames: [...ROUTER_LABELS, 'error_type'],
    registers: [this.registry],
  });
  readonly routerUpstreamResponses = new Counter({
    name: 'smg_router_upstream_responses_total',
    help: 'Upstream response heads by status',
    labelNames: ['router_type', 'status_code', 'error_code'],
    registers: [this.registry],
  });
  readonly routerTtft = new Histogram({
    name: 'smg_router_ttft_seconds',
    help: 'Time to the first streamed byte from the worker',
    labelNames: ['router_type', 'backend_type', 'model', 'endpoint'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  /** IGW: which router each request went to. */
  readonly routerSelection = new Counter({
    name: 'smg_router_selection_total',
    help: 'IGW router choices, by chosen router type and model',
    labelNames: ['router_type', 'model'],
    registers: [this.registry],
  });
  /** IGW: the router manager's weight report, run at every scrape (collectRouterWeightsWith). */
  #refreshRouterWeights: (() => void) | undefined;
  readonly routerWeight = new Gauge({
    name: 'smg_router_weight',
    help: 'Current IGW router weight per model (available capacity behind each router)',
    labelNames: ['model', 'router_type'],
    registers: [this.registry],
    collect: () => this.#refreshRouterWeights?.(),
  });

  /**
   * IGW: `refresh` writes `routerWeight` afresh at every scrape, since weights also change
   * without traffic. The router manager registers it (through its `onScrape` hook); one only.
   */
  collectRouterWeightsWith(refresh: () => void): void {
    this.#refreshRouterWeights = refresh;
  }

  // Layer 3: workers
  readonly workerRequestsActive = new Gauge({
    name: 'smg_worker_requests_active',
    help: 'In-flight requests per worker (load leases held)',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  readonly workerHealth = new Gauge({
    name: 'smg_worker_health',
    help: 'Worker health (1 ready, 0 otherwise)',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  readonly workerHealthChecks = new Counter({
    name: 'smg_worker_health_checks_total',
    help: 'Health probes by result',
    labelNames: ['worker_type', 'result'],
    registers: [this.registry],
  });
  readonly workerPoolSize = new Gauge({
    name: 'smg_worker_pool_size',
    help: 'Registered workers',
    labelNames: ['worker_type', 'connection_mode', 'model'],
    registers: [this.registry],
  });
  readonly workerSelection = new Counter({
    name: 'smg_worker_selection_total',
    help: 'Worker selections by policy',
    labelNames: ['worker_type', 'connection_mode', 'model', 'policy'],
    registers: [this.registry],
  });
  readonly workerErrors = new Counter({
    name: 'smg_worker_errors_total',
    help: 'Upstream failures by kind',
    labelNames: ['worker_type', 'connection_mode', 'error_type'],
    registers: [this.registry],
  });

  // Policies
  readonly consistentHashingBranch = new Counter({
    name: 'smg_consistent_hashing_policy_branch_total',
    help: 'consistent_hashing decisions by branch',
    labelNames: ['branch'],
    registers: [this.registry],
  });
  readonly prefixHashBranch = new Counter({
    name: 'smg_prefix_hash_policy_branch_total',
    help: 'prefix_hash decisions by branch',
    labelNames: ['branch'],
    registers: [this.registry],
  });
  readonly manualBranch = new Counter({
    name: 'smg_manual_policy_branch_total',
    help: 'manual / sticky decisions by branch',
    labelNames: ['branch'],
    registers: [this.registry],
  });
  readonly manualCacheEntries = new Gauge({
    name: 'smg_manual_policy_cache_entries',
    help: 'Routing keys held by the manual / sticky map',
    registers: [this.registry],
  });
  readonly routingKeysActive = new Gauge({
    name: 'smg_worker_routing_keys_active',
    help: 'Sticky routing keys assigned per worker',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  readonly routingKeySource = new Counter({
    name: 'smg_routing_key_source_total',
    help: 'Where the routing key came from',
    labelNames: ['source'],
    registers: [this.registry],
  });
  /** Switchyard-only: SMG drops malformed routing hints without counting them. */
  readonly routingHintIgnored = new Counter({
    name: 'smg_routing_hint_ignored_total',
    help: 'Routing hint headers whose malformed or over-cap value was not used',
    labelNames: ['header'],
    registers: [this.registry],
  });
  readonly cacheTreeChars = new Gauge({
    name: 'smg_cache_tree_chars',
    help: 'Characters held by the cache-aware tree',
    labelNames: ['model'],
    registers: [this.registry],
  });
  readonly cacheTreeTenants = new Gauge({
    name: 'smg_cache_tree_tenants',
    help: 'Workers holding prefixes in the cache-aware tree',
    labelNames: ['model', 'tree'],
    registers: [this.registry],
  });

  // Resilience: retries and circuit breakers
  readonly retries = new Counter({
    name: 'smg_worker_retries_total',
    help: 'Retried attempts',
    labelNames: ['worker_type', 'endpoint'],
    registers: [this.registry],
  });
  readonly retriesExhausted = new Counter({
    name: 'smg_worker_retries_exhausted_total',
    help: 'Requests that used every attempt',
    labelNames: ['worker_type', 'endpoint'],
    registers: [this.registry],
  });
  readonly retryBackoff = new Histogram({
    name: 'smg_worker_retry_backoff_seconds',
    help: 'Backoff slept before a retry',
    labelNames: ['attempt'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly cbState = new Gauge({
    name: 'smg_worker_cb_state',
    help: 'Circuit state (0 closed, 1 open, 2 half_open)',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  readonly cbTransitions = new Counter({
    name: 'smg_worker_cb_transitions_total',
    help: 'Circuit state transitions',
    labelNames: ['worker', 'from', 'to'],
    registers: [this.registry],
  });
  readonly cbOutcomes = new Counter({
    name: 'smg_worker_cb_outcomes_total',
    help: 'Outcomes recorded by circuit breakers',
    labelNames: ['worker', 'outcome'],
    registers: [this.registry],
  });
  readonly cbConsecutiveFailures = new Gauge({
    name: 'smg_worker_cb_consecutive_failures',
    help: 'Consecutive failures seen by the breaker',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  readonly cbConsecutiveSuccesses = new Gauge({
    name: 'smg_worker_cb_consecutive_successes',
    help: 'Consecutive successes seen by the breaker',
    labelNames: ['worker'],
    registers: [this.registry],
  });

  // Overload protection and the gateway concurrency limit
  readonly overloadShed = new Counter({
    name: 'smg_worker_overload_shed_total',
    help: 'Requests shed because workers were overloaded',
    labelNames: ['stage'],
    registers: [this.registry],
  });
  readonly workersOverloaded = new Gauge({
    name: 'smg_workers_overloaded',
    help: 'Workers currently vetoed by overload protection',
    labelNames: ['model'],
    registers: [this.registry],
  });
  readonly rateLimit = new Counter({
    name: 'smg_http_rate_limit_total',
    help: 'Concurrency-limit decisions',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly admissionInflight = new Gauge({
    name: 'smg_admission_inflight',
    help: 'Requests holding a concurrency permit',
    registers: [this.registry],
  });
  readonly admissionQueueDepth = new Gauge({
    name: 'smg_admission_queue_depth',
    help: 'Requests waiting for a concurrency permit',
    registers: [this.registry],
  });
  readonly admissionRejected = new Counter({
    name: 'smg_admission_queue_rejected_total',
    help: 'Requests rejected by the concurrency limit',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  // Engine load re-export (--engine-metrics), per DP rank as SMG
  readonly engineRunning = new Gauge({
    name: 'smg_engine_running_requests',
    help: 'Engine-reported running requests',
    labelNames: ENGINE_LABELS,
    registers: [this.registry],
  });
  readonly engineWaiting = new Gauge({
    name: 'smg_engine_waiting_requests',
    help: 'Engine-reported waiting requests',
    labelNames: ENGINE_LABELS,
    registers: [this.registry],
  });
  readonly engineTokenUsage = new Gauge({
    name: 'smg_engine_token_usage',
    help: 'Engine-reported KV usage',
    labelNames: ENGINE_LABELS,
    registers: [this.registry],
  });
  readonly engineGenThroughput = new Gauge({
    name: 'smg_engine_gen_throughput',
    help: 'Engine-reported generation tokens/s',
    labelNames: ENGINE_LABELS,
    registers: [this.registry],
  });
  readonly engineCacheHitRate = new Gauge({
    name: 'smg_engine_cache_hit_rate',
    help: 'Engine-reported prefix cache hit rate',
    labelNames: ENGINE_LABELS,
    registers: [this.registry],
  });

  // Prefill/decode disaggregation
  readonly pdTtft = new Histogram({
    name: 'smg_pd_ttft_seconds',
    help: 'PD time to first token: first leg sent to decode response head',
    labelNames: ['backend_type', 'model', 'runtime'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly pdPrefillDuration = new Histogram({
    name: 'smg_pd_prefill_duration_seconds',
    help: 'Prefill leg: sent to body fully read',
    labelNames: ['backend_type', 'model', 'runtime'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly pdKvTransferDuration = new Histogram({
    name: 'smg_pd_kv_transfer_duration_seconds',
    help: 'vLLM relay: prefill answered to decode response head, when params were relayed',
    labelNames: ['backend_type', 'model', 'runtime'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly pdKvConnectorMode = new Counter({
    name: 'smg_pd_kv_connector_mode_total',
    help: 'vLLM PD dispatches by KV connector mode',
    labelNames: ['mode'],
    registers: [this.registry],
  });
  readonly pdBootstrapFailures = new Counter({
    name: 'smg_pd_bootstrap_failures_total',
    help: 'SGLang/TokenSpeed pairs whose rendezvous failed (a leg failed)',
    registers: [this.registry],
  });
  readonly toolCallParseFailures = new Counter({
    name: 'smg_tool_call_parse_failures_total',
    help: 'gRPC chat answers whose tool-call markup did not parse (returned as content)',
    labelNames: ['parser'] as const,
    registers: [this.registry],
  });
  readonly pdKvTransferFailures = new Counter({
    name: 'smg_pd_kv_transfer_failures_total',
    help: 'vLLM prefills that returned no usable kv_transfer_params',
    registers: [this.registry],
  });

  // PD admission: per-prefill-worker slots (explicit buckets so `_bucket` series render)
  readonly pdPrefillAdmissionInflight = new Gauge({
    name: 'smg_pd_prefill_admission_inflight',
    help: 'Prefill admission slots held per prefill worker',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  readonly pdPrefillAdmissionQueued = new Gauge({
    name: 'smg_pd_prefill_admission_queued',
    help: 'Requests waiting for a prefill slot',
    registers: [this.registry],
  });
  readonly pdPrefillAdmissionWait = new Histogram({
    name: 'smg_pd_prefill_admission_wait_seconds',
    help: 'Time a request waited for a prefill slot',
    buckets: [0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly pdPrefillAdmissionRejections = new Counter({
    name: 'smg_pd_prefill_admission_rejections_total',
    help: 'Requests refused by prefill admission',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  // PD admission: decode running-window claims (never counted as overload sheds)
  readonly pdAdmissionWaits = new Counter({
    name: 'smg_pd_admission_waits_total',
    help: 'PD requests that waited for room in a decode running window',
    registers: [this.registry],
  });
  readonly pdAdmissionSheds = new Counter({
    name: 'smg_pd_admission_sheds_total',
    help: 'PD requests shed because a decode window stayed full for the wait budget',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly pdAdmissionClaimedRooms = new Gauge({
    name: 'smg_pd_admission_claimed_rooms',
    help: 'Bootstrap rooms claimed on each decode worker',
    labelNames: ['worker'],
    registers: [this.registry],
  });

  /** Text exposition of the gateway's own families. */
  async render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
