/**
 * How the primary of `launch --workers N` folds the N processes' values of each gauge into one.
 * Counters and histograms always sum: each process counted its own requests. A gauge sums when
 * each process holds its own share of it (in-flight requests, queued waiters, held claims, its
 * own sticky map and prefix tree); it must not sum when every process observes the same fleet
 * (a worker's health, a circuit, an engine's reported load, the pool size), or N processes
 * would report N times the truth. Those take one process's view, chosen as below.
 *
 * Every gauge of GatewayMetrics is listed: a unit test fails when a new one is not, so that
 * whoever adds a gauge decides (prom-client's default would silently sum it).
 */
import type { Aggregator } from 'prom-client';
import type { MetricsJson } from './messages.js';

export const GAUGE_AGGREGATORS: Readonly<Record<string, Aggregator>> = {
  // Held by each process: the fleet's is the sum.
  smg_http_connections_active: 'sum',
  smg_http_buffered_body_bytes: 'sum',
  smg_worker_requests_active: 'sum',
  smg_admission_inflight: 'sum',
  smg_admission_queue_depth: 'sum',
  smg_pd_prefill_admission_inflight: 'sum',
  smg_pd_prefill_admission_queued: 'sum',
  smg_pd_admission_claimed_rooms: 'sum',
  smg_manual_policy_cache_entries: 'sum',
  smg_worker_routing_keys_active: 'sum',
  smg_cache_tree_chars: 'sum',

  // Observed alike by every process (each probes, polls and breaks circuits on its own, so views
  // differ only for moments). 'max' is deterministic where 'first' would pick whichever process
  // answered first, and it reports the worst of the views for circuits and overload.
  smg_router_weight: 'max',
  smg_worker_pool_size: 'max',
  smg_cache_tree_tenants: 'max',
  smg_worker_cb_state: 'max',
  smg_worker_cb_consecutive_failures: 'max',
  smg_worker_cb_consecutive_successes: 'max',
  smg_workers_overloaded: 'max',
  smg_engine_running_requests: 'max',
  smg_engine_waiting_requests: 'max',
  smg_engine_token_usage: 'max',
  smg_engine_gen_throughput: 'max',
  smg_engine_cache_hit_rate: 'max',
  // What the fleet is: every process registers the same workers, windows and limit.
  smg_worker_info: 'max',
  smg_pd_admission_window: 'max',
  smg_pd_prefill_admission_limit: 'max',
  // Every process runs its own pod watcher over the same pods.
  smg_discovery_workers_discovered: 'max',
  // 1 only when every process finds the worker ready, i.e. every process routes to it.
  smg_worker_health: 'min',
  // Declared by the admission store wiring: 1 only when every process reaches the shared state.
  smg_admission_store_up: 'min',
};

/** The aggregator the primary uses for a family (gauges from the table, all else sums). */
export function aggregatorOf(name: string, type: unknown): Aggregator {
  return String(type) === 'gauge' ? (GAUGE_AGGREGATORS[name] ?? 'sum') : 'sum';
}

/**
 * The families with the primary's aggregator set on each. The processes' own metric objects
 * carry prom-client's default ('sum'); setting it here keeps the choice in this one table.
 */
export function withAggregators(metrics: MetricsJson): MetricsJson {
  return metrics.map((m) => ({ ...m, aggregator: aggregatorOf(m.name, m.type) }));
}

/** True for the families whose values only grow: counters, and histograms' buckets, sums, counts. */
export function isMonotonic(type: unknown): boolean {
  return String(type) === 'counter' || String(type) === 'histogram';
}
