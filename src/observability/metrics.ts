/**
 * Every Prometheus metric the gateway exports, defined in this one file with SMG's names,
 * labels and histogram buckets (smg-core.md §6). Each gateway owns its own Registry so that
 * several gateways can live in one process (tests) without colliding.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** SMG's buckets for every `*duration_seconds`, `*ttft_seconds` and `*tpot_seconds` histogram. */
export const DURATION_BUCKETS = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60, 90, 120, 180,
  240, 300, 480, 900, 1200, 1800, 2700, 3600, 5400, 7200,
];

const ROUTER_LABELS = ['router_type', 'backend_type', 'connection_mode', 'model', 'endpoint'] as const;

export class GatewayMetrics {
  readonly registry = new Registry();

  // Layer 1: HTTP ingress
  readonly httpRequests = new Counter({
    name: 'smg_http_requests_total', help: 'HTTP requests received', labelNames: ['method', 'path'], registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'smg_http_request_duration_seconds', help: 'HTTP request duration, head to last byte',
    labelNames: ['method', 'path'], buckets: DURATION_BUCKETS, registers: [this.registry],
  });
  readonly httpResponses = new Counter({
    name: 'smg_http_responses_total', help: 'HTTP responses sent, by status and gateway error code',
    labelNames: ['path', 'status_code', 'error_code'], registers: [this.registry],
  });
  readonly httpConnectionsActive = new Gauge({
    name: 'smg_http_connections_active', help: 'Open client connections', registers: [this.registry],
  });

  // Layer 2: router
  readonly routerRequests = new Counter({
    name: 'smg_router_requests_total', help: 'Requests routed',
    labelNames: [...ROUTER_LABELS, 'streaming'], registers: [this.registry],
  });
  readonly routerDuration = new Histogram({
    name: 'smg_router_request_duration_seconds', help: 'Routed request duration, selection to last byte',
    labelNames: ROUTER_LABELS, buckets: DURATION_BUCKETS, registers: [this.registry],
  });
  readonly routerErrors = new Counter({
    name: 'smg_router_request_errors_total', help: 'Routed requests that ended in a gateway error',
    labelNames: [...ROUTER_LABELS, 'error_type'], registers: [this.registry],
  });
  readonly routerUpstreamResponses = new Counter({
    name: 'smg_router_upstream_responses_total', help: 'Upstream response heads by status',
    labelNames: ['router_type', 'status_code', 'error_code'], registers: [this.registry],
  });
  readonly routerTtft = new Histogram({
    name: 'smg_router_ttft_seconds', help: 'Time to the first streamed byte from the worker',
    labelNames: ['router_type', 'backend_type', 'model', 'endpoint'], buckets: DURATION_BUCKETS, registers: [this.registry],
  });

  // Layer 3: workers
  readonly workerRequestsActive = new Gauge({
    name: 'smg_worker_requests_active', help: 'In-flight requests per worker (load leases held)',
    labelNames: ['worker'], registers: [this.registry],
  });
  readonly workerHealth = new Gauge({
    name: 'smg_worker_health', help: 'Worker health (1 ready, 0 otherwise)', labelNames: ['worker'], registers: [this.registry],
  });
  readonly workerHealthChecks = new Counter({
    name: 'smg_worker_health_checks_total', help: 'Health probes by result',
    labelNames: ['worker_type', 'result'], registers: [this.registry],
  });
  readonly workerPoolSize = new Gauge({
    name: 'smg_worker_pool_size', help: 'Registered workers',
    labelNames: ['worker_type', 'connection_mode', 'model'], registers: [this.registry],
  });
  readonly workerSelection = new Counter({
    name: 'smg_worker_selection_total', help: 'Worker selections by policy',
    labelNames: ['worker_type', 'connection_mode', 'model', 'policy'], registers: [this.registry],
  });
  readonly workerErrors = new Counter({
    name: 'smg_worker_errors_total', help: 'Upstream failures by kind',
    labelNames: ['worker_type', 'connection_mode', 'error_type'], registers: [this.registry],
  });

  /** Text exposition of the gateway's own families. */
  async render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
