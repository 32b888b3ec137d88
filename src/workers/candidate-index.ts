/**
 * The registry's maintained candidate sets, one per (worker type, model), and the routing of
 * worker events to the sets they can change. Model `unknown` is every worker of the type; a
 * model no worker announces is served by the wildcard workers alone, so every such name shares
 * one set and client-chosen names cannot grow this index.
 *
 * An open circuit half-opens on the first state read after its timeout (circuit-breaker.ts),
 * and nothing reads the state of a worker left out of the available lists. So open breakers
 * wait in a heap ordered by `openUntil`, and each lookup reads the state of the earliest one:
 * one clock read per selection while some breaker is open, none otherwise. (The order assumes
 * the breakers share one clock, as those built by circuit-factory.ts do.)
 */
import { IndexedHeap } from '../util/indexed-heap.js';
import { candidateSet, type CandidateSet } from './candidate-set.js';
import { CandidateGroup, type GroupSource } from './candidate-group.js';
import { UNKNOWN_MODEL_ID, type RoutingChange, type Worker, type WorkerType } from './worker.js';

/** Key of the set shared by every model name no registered worker announces. */
const WILDCARD = '\u0000any-model';

export class CandidateIndex implements GroupSource {
  readonly #groups = new Map<WorkerType, Map<string, CandidateGroup>>();
  /** Published `all` arrays to their set, so `setFor` finds a maintained set in O(1). */
  readonly #byArray = new WeakMap<readonly Worker[], CandidateGroup>();
  readonly #reopening = new IndexedHeap<Worker>(
    (a, b) => (a.circuit.openUntil ?? Infinity) < (b.circuit.openUntil ?? Infinity),
  );
  #reportVersion = 0;

  constructor(
    private readonly registered: ReadonlyMap<string, Worker>,
    /** Every model id some registered worker announces (kept by the registry). */
    private readonly announced: ReadonlySet<string>,
  ) {}

  get reportVersion(): number {
    return this.#reportVersion;
  }

  workers(): Iterable<Worker> {
    return this.registered.values();
  }

  published(all: readonly Worker[], group: CandidateGroup): void {
    this.#byArray.set(all, group);
  }

  /** The maintained set of `type` workers serving `model`. */
  group(model: string, type: WorkerType): CandidateGroup {
    this.#reviveDue();
    const key =
      model === UNKNOWN_MODEL_ID ? UNKNOWN_MODEL_ID : this.announced.has(model) ? model : WILDCARD;
    let byModel = this.#groups.get(type);
    if (byModel === undefined) {
      byModel = new Map();
      this.#groups.set(type, byModel);
    }
    let group = byModel.get(key);
    if (group === undefined) {
      group = new CandidateGroup(this, includes(key, type));
      byModel.set(key, group);
    }
    return group;
  }

  /** The maintained set whose `all` is `workers`, else a set computed from `workers`. */
  setFor(workers: readonly Worker[]): CandidateSet {
    const group = this.#byArray.get(workers);
    return group !== undefined && group.all === workers ? group : candidateSet(workers);
  }

  /** A worker of `type` joined or left (or was replaced); the announced models are current. */
  membersChanged(type: WorkerType): void {
    const byModel = this.#groups.get(type);
    if (byModel === undefined) return;
    for (const [key, group] of byModel) {
      // A model nobody announces any more shares the wildcard set again.
      if (key !== UNKNOWN_MODEL_ID && key !== WILDCARD && !this.announced.has(key)) {
        group.retire();
        byModel.delete(key);
      } else group.membersChanged();
    }
  }

  added(worker: Worker): void {
    if (worker.circuit.openUntil !== undefined) this.#reopening.upsert(worker);
  }

  removed(worker: Worker): void {
    this.#reopening.delete(worker);
  }

  workerChanged(worker: Worker, change: RoutingChange): void {
    switch (change) {
      case 'report':
        this.#reportVersion++;
        return;
      case 'model':
        this.membersChanged(worker.type);
        return;
      case 'circuit':
        if (worker.circuit.openUntil === undefined) this.#reopening.delete(worker);
        else this.#reopening.upsert(worker);
        break;
      case 'status':
      case 'overloaded':
        break;
    }
    const byModel = this.#groups.get(worker.type);
    if (byModel !== undefined) for (const group of byModel.values()) group.workerChanged(worker);
  }

  loadChanged(worker: Worker, delta: number): void {
    const byModel = this.#groups.get(worker.type);
    if (byModel !== undefined)
      for (const group of byModel.values()) group.loadChanged(worker, delta);
  }

  /** Half-opens every breaker whose timeout has passed (the read itself moves the state). */
  #reviveDue(): void {
    for (;;) {
      const worker = this.#reopening.peek();
      if (worker === undefined || !worker.circuit.canExecute()) return;
      // The transition's event already took it off the heap; this covers a breaker without one.
      this.#reopening.delete(worker);
    }
  }
}

function includes(key: string, type: WorkerType): (w: Worker) => boolean {
  if (key === UNKNOWN_MODEL_ID) return (w) => w.type === type;
  if (key === WILDCARD) return (w) => w.type === type && w.servesAnyModel;
  return (w) => w.type === type && w.serves(key);
}
