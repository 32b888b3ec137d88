/**
 * One upstream worker: identity, what it serves, its status, and its in-flight load. The load
 * is only ever changed through a Lease, so it returns to zero on every exit path. Every input
 * of `isAvailable()` and `serves()` (status, overload veto, circuit state, `model_id` label) is
 * written through a setter that tells the routing listener, so the registry's per-model lists
 * of available workers never go stale, whoever writes the field.
 */
import { lease, type Lease } from '../util/lease.js';
import { systemClock } from '@switchyard/kit';
import { CircuitBreaker } from './circuit-breaker.js';
import type { WorkerLoadSnapshot } from './load-snapshot.js';
import { connectionModeOf, type ConnectionMode } from './worker-url.js';

export const WORKER_TYPES = ['regular', 'prefill', 'decode'] as const;
export type WorkerType = (typeof WORKER_TYPES)[number];

export const RUNTIMES = [
  'unspecified',
  'sglang',
  'vllm',
  'tokenspeed',
  'trtllm',
  'generic',
] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** SMG's status machine; only `ready` is routable. */
export type WorkerStatus = 'pending' | 'ready' | 'not_ready' | 'failed' | 'draining';

/** SMG's model id for a worker that announces none: it then serves any model. */
export const UNKNOWN_MODEL_ID = 'unknown';
/** The `model` metric label of every model name no registered worker announces. */
export const OTHER_MODEL_LABEL = 'other';

export interface WorkerInit {
  id: string;
  url: string;
  type: WorkerType;
  /** Derived from the URL's scheme when not given. */
  connectionMode?: ConnectionMode | undefined;
  runtime: Runtime;
  models: readonly string[];
  labels: Readonly<Record<string, string>>;
  priority: number;
  cost: number;
  apiKey?: string | undefined;
  bootstrapPort?: number | null | undefined;
  kvConnector?: string | undefined;
  kvRole?: string | undefined;
  kvEngineId?: string | undefined;
  /** The WorkerSpec as submitted, echoed back by the worker API (minus api_key). */
  spec: Readonly<Record<string, unknown>>;
  /** This worker's breaker; defaults to one that never opens. */
  circuit?: CircuitBreaker | undefined;
  /** DP-aware logical worker: requests go to `url` (the base) with this rank injected. */
  dpRank?: number | undefined;
  dpSize?: number | undefined;
}

/** `delta` is +1 when a lease is taken, -1 when it is released. */
export type LoadListener = (worker: Worker, delta: number) => void;

/** What changed: status, overload veto, circuit state, `model_id` label, or engine report. */
export type RoutingChange = 'status' | 'overloaded' | 'circuit' | 'model' | 'report';
export type RoutingListener = (worker: Worker, change: RoutingChange) => void;

export class Worker {
  readonly id: string;
  readonly url: string;
  /** `grpc` for a `grpc://` or `grpcs://` worker: it has an engine client, not an HTTP pool. */
  readonly connectionMode: ConnectionMode;
  /** scheme://host:port, the key of this worker's connection pool (HTTP workers). */
  readonly origin: string;
  /** The URL's path prefix ('' or e.g. `/engine`): every request to this worker goes under it. */
  readonly basePath: string;
  readonly type: WorkerType;
  readonly runtime: Runtime;
  readonly models: readonly string[];
  priority: number;
  cost: number;
  apiKey: string | undefined;
  readonly bootstrapPort: number | null | undefined;
  readonly kvConnector: string | undefined;
  readonly kvRole: string | undefined;
  readonly kvEngineId: string | undefined;
  /** Mutable only through PATCH (labels, health overrides). */
  spec: Readonly<Record<string, unknown>>;

  readonly circuit: CircuitBreaker;
  readonly dpRank: number | undefined;
  readonly dpSize: number | undefined;

  #processed = 0;
  #status: WorkerStatus = 'pending';
  #overloaded = false;
  #loadSnapshot: WorkerLoadSnapshot | undefined;
  #labels: Readonly<Record<string, string>>;
  #load = 0;
  #onLoadChange: LoadListener | undefined;
  #onRoutingChange: RoutingListener | undefined;

  constructor(init: WorkerInit) {
    this.id = init.id;
    this.url = init.url;
    this.connectionMode = init.connectionMode ?? connectionModeOf(init.url);
    // A gRPC URL is `grpc://host:port` (worker-url.ts), for which WHATWG has no origin.
    const parsed = new URL(init.url);
    this.origin = this.connectionMode === 'grpc' ? init.url : parsed.origin;
    this.basePath = this.connectionMode === 'grpc' ? '' : parsed.pathname.replace(/\/+$/, '');
    this.type = init.type;
    this.runtime = init.runtime;
    this.models = init.models;
    this.#labels = init.labels;
    this.priority = init.priority;
    this.cost = init.cost;
    this.apiKey = init.apiKey;
    this.bootstrapPort = init.bootstrapPort;
    this.kvConnector = init.kvConnector;
    this.kvRole = init.kvRole;
    this.kvEngineId = init.kvEngineId;
    this.spec = init.spec;
    this.circuit =
      init.circuit ??
      new CircuitBreaker(
        { failureThreshold: 1, successThreshold: 1, timeoutMs: 0, disabled: true },
        systemClock,
      );
    this.dpRank = init.dpRank;
    this.dpSize = init.dpSize;
    this.circuit.onTransition(() => this.#onRoutingChange?.(this, 'circuit'));
  }

  /** SMG's status machine; written by the registry's `setStatus` (health checks, draining). */
  get status(): WorkerStatus {
    return this.#status;
  }

  set status(next: WorkerStatus) {
    if (next === this.#status) return;
    this.#status = next;
    this.#onRoutingChange?.(this, 'status');
  }

  /** Latched by overload protection once per load report (SMG `set_overloaded`). */
  get overloaded(): boolean {
    return this.#overloaded;
  }

  set overloaded(next: boolean) {
    if (next === this.#overloaded) return;
    this.#overloaded = next;
    this.#onRoutingChange?.(this, 'overloaded');
  }

  /** Latest engine load report from the load monitor; undefined until the first poll. */
  get loadSnapshot(): WorkerLoadSnapshot | undefined {
    return this.#loadSnapshot;
  }

  set loadSnapshot(next: WorkerLoadSnapshot | undefined) {
    if (next === this.#loadSnapshot) return;
    this.#loadSnapshot = next;
    this.#onRoutingChange?.(this, 'report');
  }

  /** Mutable through PATCH; the `model_id` label is one of the model names the worker serves. */
  get labels(): Readonly<Record<string, string>> {
    return this.#labels;
  }

  set labels(next: Readonly<Record<string, string>>) {
    const previousModel = this.#labels.model_id;
    this.#labels = next;
    if (next.model_id !== previousModel) this.#onRoutingChange?.(this, 'model');
  }

  /**
   * The registry key: the URL, with `@rank` for a DP-aware logical worker (SMG's
   * `x-smg-routed-worker-id` carries the same form).
   */
  get key(): string {
    return this.dpRank === undefined ? this.url : `${this.url}@${this.dpRank}`;
  }

  /**
   * The request path to send on this worker's pool (keyed by origin): `path` under the URL's
   * prefix, so inference, PD legs, proxies, probes and load polls all reach `url + path`.
   */
  upstreamPath(path: string): string {
    return this.basePath + path;
  }

  /** The absolute URL of `path` on this worker, for calls made outside its pool. */
  upstreamUrl(path: string): string {
    return this.origin + this.upstreamPath(path);
  }

  /** The primary model id, SMG-style: first model card, else the `model_id` label, else unknown. */
  get modelId(): string {
    return this.models[0] ?? this.labels.model_id ?? UNKNOWN_MODEL_ID;
  }

  /** True when the worker announced no model and so accepts any. */
  get servesAnyModel(): boolean {
    return this.models.length === 0 && this.labels.model_id === undefined;
  }

  serves(model: string): boolean {
    return this.servesAnyModel || this.models.includes(model) || this.labels.model_id === model;
  }

  get load(): number {
    return this.#load;
  }

  /**
   * Requests ever dispatched here: the tie-break after load in min-load choices. Read-only, as
   * the load is: the registry's min-load index re-sorts a worker only when a lease changes.
   */
  get processedRequests(): number {
    return this.#processed;
  }

  get isHealthy(): boolean {
    return this.status === 'ready';
  }

  /** SMG `is_available`: ready, the circuit allows a request, and not overload-vetoed. */
  isAvailable(): boolean {
    return this.status === 'ready' && !this.overloaded && this.circuit.canExecute();
  }

  /** SMG `is_healthy_and_eligible`: the hash policies ignore the circuit breaker. */
  isHealthyAndEligible(): boolean {
    return this.status === 'ready' && !this.overloaded;
  }

  /** Called by the registry to publish load changes (the in-flight gauge, the min-load index). */
  onLoadChange(listener: LoadListener | undefined): void {
    this.#onLoadChange = listener;
  }

  /** Called by the registry to keep its available-worker lists in step with this worker. */
  onRoutingChange(listener: RoutingListener | undefined): void {
    this.#onRoutingChange = listener;
  }

  /** Takes one unit of in-flight load until the returned lease is released. */
  acquireLoad(): Lease {
    this.#load += 1;
    this.#processed += 1;
    this.#onLoadChange?.(this, 1);
    return lease(() => {
      this.#load -= 1;
      this.#onLoadChange?.(this, -1);
    });
  }
}
