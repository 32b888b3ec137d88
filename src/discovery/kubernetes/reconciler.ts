/**
 * One reconcile pass, as SMG's `reconcile_workers` (service_discovery.rs): the workers the pods
 * ask for against the workers discovery owns, then registrations and removals through the
 * `WorkerService`, so discovered workers take the same path as `POST /workers` and `DELETE`
 * (startup probes, metadata, draining for `--drain-settle-secs`).
 *
 * Unlike SMG, whose reconciler leaves an unready pod's workers to the health checker, a worker
 * whose pod is no longer Running and Ready is drained as a terminating pod's is, and registered
 * anew once the pod is ready again (compat deviation, docs/service-discovery.md).
 *
 * Discovery owns exactly the workers carrying the `smg.ai/pod-uid` label (and the registrations
 * it started that have not finished): a worker added by hand is never removed or replaced.
 */
import type { Clock } from '@switchyard/kit';
import type { DiscoveryMetrics } from '../../observability/discovery-metrics.js';
import type { Logger } from '../../observability/logger.js';
import type { WorkerRegistry } from '../../workers/registry.js';
import type { WorkerService } from '../../workers/service.js';
import type { Worker } from '../../workers/worker.js';
import {
  desiredState,
  workerSpecOf,
  type DesiredState,
  type DesiredWorker,
} from './desired-workers.js';
import { POD_UID_LABEL, type PodObject, type PodReadConfig } from './pod.js';

export interface ReconcilerDeps {
  readonly registry: WorkerRegistry;
  readonly workers: WorkerService;
  readonly metrics: DiscoveryMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Asks for another pass soon: a cancelled registration frees its URL only after this pass. */
  readonly requestPass: () => void;
}

/** A worker URL discovery owns: registered (all DP ranks of it) or still registering. */
interface Owned {
  readonly uid: string;
  /** The registered worker (the first DP rank), or undefined while registration runs. */
  readonly worker: Worker | undefined;
  readonly id: string;
}

const SOURCE = 'kubernetes';

export class Reconciler {
  /** URL -> pod uid of the registrations this reconciler started, until they finish. */
  readonly #registering = new Map<string, string>();

  constructor(
    private readonly config: PodReadConfig,
    private readonly deps: ReconcilerDeps,
  ) {}

  async reconcile(pods: Iterable<PodObject>): Promise<void> {
    const { metrics, clock } = this.deps;
    const started = clock.now();
    const desired = desiredState(pods, this.config);
    const owned = this.#owned();
    const removed = this.#remove(desired, owned);
    const added = await this.#add(desired, owned);
    metrics.workersDiscovered.set({ source: SOURCE }, desired.heldByUrl.size);
    // As SMG: a pass that changed nothing is not a sync worth timing.
    if (removed + added > 0) {
      metrics.syncDuration.observe({ source: SOURCE }, (clock.now() - started) / 1000);
    }
  }

  /** Registered workers with the pod-uid label, and registrations still running, by URL. */
  #owned(): Map<string, Owned> {
    const { registry, workers } = this.deps;
    const owned = new Map<string, Owned>();
    for (const worker of registry.all()) {
      const uid = worker.labels[POD_UID_LABEL];
      // DP ranks share their engine's URL; the first one found stands for the group.
      if (uid !== undefined && !owned.has(worker.url)) {
        owned.set(worker.url, { uid, worker, id: worker.id });
      }
    }
    for (const [url, uid] of this.#registering) {
      const id = registry.idForUrl(url);
      if (id !== undefined && workers.pendingSpec(id) !== undefined && !owned.has(url)) {
        owned.set(url, { uid, worker: undefined, id });
      } else {
        this.#registering.delete(url);
      }
    }
    return owned;
  }

  /**
   * Removes what no Running and Ready pod holds any more (gone, terminating, not ready, or its
   * URL now another pod's), through the drain of `WorkerService.remove`.
   */
  #remove(desired: DesiredState, owned: ReadonlyMap<string, Owned>): number {
    const { workers, metrics, logger } = this.deps;
    let count = 0;
    for (const [url, entry] of owned) {
      const holder = desired.uidByUrl.get(url);
      if (holder === entry.uid) continue;
      // A removal already under way owns this worker's transition until it leaves: a pod ready
      // again meanwhile registers a new worker on the pass after that (see #add).
      if (entry.worker?.status === 'draining') continue;
      const why = removalReason(entry.uid, holder ?? desired.heldByUrl.get(url));
      workers.remove(entry.id, url);
      if (entry.worker === undefined) {
        this.#registering.delete(url);
        logger.info(
          { worker: url, podUid: entry.uid },
          `discovery: registration cancelled (${why})`,
        );
        this.deps.requestPass();
        continue;
      }
      metrics.deregistrations.inc({ source: SOURCE, reason: 'reconciled' });
      logger.info({ worker: url, podUid: entry.uid }, `discovery: removing worker (${why})`);
      count += 1;
    }
    return count;
  }

  /** Registers the workers of Running and Ready pods that are not registered yet. */
  async #add(desired: DesiredState, owned: ReadonlyMap<string, Owned>): Promise<number> {
    let count = 0;
    for (const want of desired.addable) {
      const current = owned.get(want.url);
      // Registered or registering for this pod: nothing to do. A draining worker (its pod lost
      // readiness and regained it, or another pod now holds its URL) is left to finish: the new
      // worker registers on the pass after the old one has left the registry.
      if (current !== undefined) continue;
      // A worker added by hand at this URL is never replaced.
      if (this.deps.registry.getByUrl(want.url) !== undefined) continue;
      if (await this.#register(want)) count += 1;
    }
    return count;
  }

  async #register(want: DesiredWorker): Promise<boolean> {
    const { workers, metrics, logger } = this.deps;
    const refusal = await workers.refusal(want.url);
    const spec = refusal === undefined ? workerSpecOf(want) : `refused: ${refusal}`;
    if (typeof spec === 'string') {
      metrics.registrations.inc({ source: SOURCE, result: 'failed' });
      logger.warn(
        { worker: want.url, pod: want.podName, err: spec },
        'discovery: worker not registered',
      );
      return false;
    }
    const { conflict } = workers.add(spec);
    if (conflict) return false;
    this.#registering.set(want.url, want.podUid);
    metrics.registrations.inc({ source: SOURCE, result: 'success' });
    logger.info(
      { worker: want.url, type: want.type, pod: want.podName, podUid: want.podUid },
      'discovery: registering worker',
    );
    for (const problem of want.problems)
      logger.warn({ pod: want.podName }, `discovery: ${problem}`);
    return true;
  }
}

/** Why a discovered worker of pod `uid` is removed, given the live pod holding its URL (if any). */
function removalReason(uid: string, holder: string | undefined): string {
  if (holder === undefined) return 'pod gone or terminating';
  return holder === uid ? 'pod not ready' : 'pod replaced';
}
