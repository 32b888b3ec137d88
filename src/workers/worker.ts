/**
 * One upstream worker: identity, what it serves, its status, and its in-flight load. The load
 * is only ever changed through a Lease, so it returns to zero on every exit path.
 */
import { lease, type Lease } from '../admission/lease.js';

export const WORKER_TYPES = ['regular', 'prefill', 'decode'] as const;
export type WorkerType = (typeof WORKER_TYPES)[number];

export const RUNTIMES = ['unspecified', 'sglang', 'vllm', 'tokenspeed', 'trtllm', 'generic'] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** SMG's status machine; only `ready` is routable. */
export type WorkerStatus = 'pending' | 'ready' | 'not_ready' | 'failed' | 'draining';

/** SMG's model id for a worker that announces none: it then serves any model. */
export const UNKNOWN_MODEL_ID = 'unknown';

export interface WorkerInit {
  id: string;
  url: string;
  type: WorkerType;
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
}

export type LoadListener = (worker: Worker) => void;

export class Worker {
  readonly id: string;
  readonly url: string;
  /** scheme://host:port, the key of this worker's connection pool. */
  readonly origin: string;
  readonly type: WorkerType;
  readonly runtime: Runtime;
  readonly models: readonly string[];
  labels: Readonly<Record<string, string>>;
  priority: number;
  cost: number;
  apiKey: string | undefined;
  readonly bootstrapPort: number | null | undefined;
  readonly kvConnector: string | undefined;
  readonly kvRole: string | undefined;
  readonly kvEngineId: string | undefined;
  readonly spec: Readonly<Record<string, unknown>>;

  status: WorkerStatus = 'pending';
  #load = 0;
  #onLoadChange: LoadListener | undefined;

  constructor(init: WorkerInit) {
    this.id = init.id;
    this.url = init.url;
    this.origin = new URL(init.url).origin;
    this.type = init.type;
    this.runtime = init.runtime;
    this.models = init.models;
    this.labels = init.labels;
    this.priority = init.priority;
    this.cost = init.cost;
    this.apiKey = init.apiKey;
    this.bootstrapPort = init.bootstrapPort;
    this.kvConnector = init.kvConnector;
    this.kvRole = init.kvRole;
    this.kvEngineId = init.kvEngineId;
    this.spec = init.spec;
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

  get isHealthy(): boolean {
    return this.status === 'ready';
  }

  /** Routable now. Circuit breaker and overload veto join this predicate with the resilience work. */
  isAvailable(): boolean {
    return this.status === 'ready';
  }

  /** Called by the registry to publish load changes (the in-flight gauge). */
  onLoadChange(listener: LoadListener | undefined): void {
    this.#onLoadChange = listener;
  }

  /** Takes one unit of in-flight load until the returned lease is released. */
  acquireLoad(): Lease {
    this.#load += 1;
    this.#onLoadChange?.(this);
    return lease(() => {
      this.#load -= 1;
      this.#onLoadChange?.(this);
    });
  }
}
