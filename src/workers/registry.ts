/**
 * The worker registry: the single in-process source of which workers exist and their status.
 * It emits events (added, removed, replaced, health) that admission queues, policies and
 * readiness subscribe to; it owns nothing about routing decisions. It keeps each model's
 * candidate set current (candidate-index.ts), so routing a request does not scan the fleet.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { gaugeChild } from '../observability/label-cache.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { CandidateIndex } from './candidate-index.js';
import type { CandidateSet } from './candidate-set.js';
import { RegistryCensus } from './registry-census.js';
import {
  OTHER_MODEL_LABEL,
  UNKNOWN_MODEL_ID,
  type RoutingListener,
  type Worker,
  type WorkerStatus,
  type WorkerType,
} from './worker.js';

export interface RegistryEvents {
  added: [worker: Worker];
  removed: [worker: Worker];
  replaced: [previous: Worker, next: Worker];
  health: [worker: Worker, previous: WorkerStatus];
}

export class WorkerRegistry extends EventEmitter<RegistryEvents> {
  readonly #byId = new Map<string, Worker>();
  /** Model ids and pool sizes of the registered workers, counted on add and remove. */
  readonly #census: RegistryCensus;
  /** Ids are reserved per URL so a worker keeps its id across re-registration (SMG behaviour). */
  readonly #idByUrl = new Map<string, string>();
  readonly #candidates: CandidateIndex;
  readonly #onRoutingChange: RoutingListener = (worker, change) => {
    // A new `model_id` changes which models are announced before it changes any candidate set.
    if (change === 'model') this.#census.recount(worker);
    this.#candidates.workerChanged(worker, change);
  };

  constructor(private readonly metrics: GatewayMetrics) {
    super();
    this.#census = new RegistryCensus(metrics.workerPoolSize);
    this.#candidates = new CandidateIndex(this.#byId, this.#census.announced);
  }

  /** Returns the id reserved for this URL, minting one on first sight. */
  reserveId(url: string): string {
    let id = this.#idByUrl.get(url);
    if (!id) {
      id = randomUUID();
      this.#idByUrl.set(url, id);
    }
    return id;
  }

  idForUrl(url: string): string | undefined {
    return this.#idByUrl.get(url);
  }

  get(id: string): Worker | undefined {
    return this.#byId.get(id);
  }

  getByUrl(url: string): Worker | undefined {
    const id = this.#idByUrl.get(url);
    return id === undefined ? undefined : this.#byId.get(id);
  }

  all(): Worker[] {
    return [...this.#byId.values()];
  }

  ofType(type: WorkerType): Worker[] {
    return this.all().filter((w) => w.type === type);
  }

  /**
   * Candidate workers of one type for a model, in registry order. Model `unknown` (SMG:
   * `/generate` without a model) means every worker of the type. The array is maintained, not
   * copied: the same object until the candidates change, and never to be mutated.
   */
  forModel(model: string, type: WorkerType): readonly Worker[] {
    return this.#candidates.group(model, type).all;
  }

  /** The maintained candidate set of `forModel(model, type)`: the input of `Policy.select`. */
  candidates(model: string, type: WorkerType): CandidateSet {
    return this.#candidates.group(model, type);
  }

  /**
   * The candidate set of a list of workers: O(1) for an array `forModel` returned (while it is
   * current), else computed from the list (e.g. candidates narrowed by prefill admission).
   */
  candidateSet(workers: readonly Worker[]): CandidateSet {
    return this.#candidates.setFor(workers);
  }

  /** Distinct model ids announced by workers, for `/v1/models`. */
  models(): { id: string; ownedBy: string }[] {
    const seen = new Map<string, string>();
    for (const w of this.#byId.values()) {
      for (const m of w.models) if (!seen.has(m)) seen.set(m, w.runtime);
    }
    return [...seen].map(([id, ownedBy]) => ({ id, ownedBy }));
  }

  add(worker: Worker): void {
    const previous = this.#byId.get(worker.id);
    this.#byId.set(worker.id, worker);
    this.#idByUrl.set(worker.key, worker.id);
    this.#watchLoad(worker);
    worker.onRoutingChange(this.#onRoutingChange);
    this.metrics.workerHealth.set({ worker: worker.key }, worker.isHealthy ? 1 : 0);
    if (previous && previous !== worker) {
      this.#census.remove(previous);
      this.#unwatch(previous);
    }
    this.#census.add(worker);
    this.#candidates.added(worker);
    this.#candidates.membersChanged(worker.type);
    if (previous && previous.type !== worker.type) this.#candidates.membersChanged(previous.type);
    if (previous) {
      this.emit('replaced', previous, worker);
    } else {
      this.emit('added', worker);
    }
  }

  remove(id: string): Worker | undefined {
    const worker = this.#byId.get(id);
    if (!worker) return undefined;
    this.#byId.delete(id);
    // The URL keeps its reserved id, so a worker re-added later is the same resource.
    // Requests still in flight keep their lease; they release into the detached worker object.
    this.#unwatch(worker);
    this.#census.remove(worker);
    this.#candidates.membersChanged(worker.type);
    // Listeners (policies, admission) clean up first; the per-worker series go last, so nothing
    // writes a removed worker's series back into existence.
    this.emit('removed', worker);
    for (const gauge of [
      this.metrics.workerRequestsActive,
      this.metrics.workerHealth,
      this.metrics.cbState,
      this.metrics.cbConsecutiveFailures,
      this.metrics.cbConsecutiveSuccesses,
      this.metrics.routingKeysActive,
    ]) {
      gauge.remove({ worker: worker.key });
    }
    return worker;
  }

  setStatus(worker: Worker, status: WorkerStatus): void {
    const previous = worker.status;
    if (previous === status) return;
    worker.status = status;
    if (this.#byId.get(worker.id) !== worker) return;
    this.metrics.workerHealth.set({ worker: worker.key }, worker.isHealthy ? 1 : 0);
    this.emit('health', worker, previous);
  }

  #watchLoad(worker: Worker): void {
    // The child is made once per worker: load changes twice per request, and prom-client's own
    // calls validate and hash the label set each time (observability/label-cache.ts).
    const child = gaugeChild(this.metrics.workerRequestsActive, { worker: worker.key });
    child.set(worker.load);
    worker.onLoadChange((w, delta) => {
      child.set(w.load);
      this.#candidates.loadChanged(w, delta);
    });
  }

  /** Stops listening to a worker that left the registry (removed or replaced). */
  #unwatch(worker: Worker): void {
    worker.onLoadChange(undefined);
    worker.onRoutingChange(undefined);
    this.#candidates.removed(worker);
  }

  /** Whether some registered worker's primary model id is `model` (kept on add/remove). */
  hasModelId(model: string): boolean {
    return this.#census.hasModelId(model);
  }

  /**
   * The `model` label for a client-chosen model name: the name itself when some registered
   * worker announces it (or `unknown`, the label of a request naming none), else `other`. Clients
   * choose model names freely, and each distinct label value is a new set of series on /metrics.
   */
  modelLabel(model: string): string {
    return model === UNKNOWN_MODEL_ID || this.#census.announced.has(model)
      ? model
      : OTHER_MODEL_LABEL;
  }
}
