/**
 * Kubernetes service discovery (`--service-discovery`): a pod watcher keeping a store current,
 * and reconcile passes turning the store into registered workers. Level-triggered as SMG's: a
 * pass runs after the first list, shortly after each change (a burst of events is one pass), and
 * every minute regardless, so a missed event or a failed registration is retried by itself.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock, Random, Timer } from '@switchyard/kit';
import type { GatewayConfig } from '../../config/schema.js';
import { DiscoveryMetrics } from '../../observability/discovery-metrics.js';
import type { Logger } from '../../observability/logger.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { BACKGROUND, every } from '../../util/every.js';
import type { WorkerRegistry } from '../../workers/registry.js';
import type { WorkerService } from '../../workers/service.js';
import type { Worker } from '../../workers/worker.js';
import type { BackoffConfig } from './backoff.js';
import { loadKubeConfig } from './kube-config.js';
import type { KubeClient } from './kube-client.js';
import { parseModelIdSource } from './model-id-source.js';
import { POD_UID_LABEL, type PodReadConfig } from './pod.js';
import { PodWatcher } from './pod-watcher.js';
import { Reconciler } from './reconciler.js';
import { parseSelector, selectorString, serverSelector } from './selector.js';

/** SMG coalesces a burst of events (a rollout, a re-list) into one pass after a second. */
const SETTLE_MS = 1000;
/** SMG's `check_interval`: a pass every minute even without events. */
const RESYNC_MS = 60_000;

export interface KubernetesDiscoveryDeps {
  readonly registry: WorkerRegistry;
  readonly workers: WorkerService;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly random: Random;
  /** The client library, loaded by the caller (`loadKubeClient`) only when discovery runs. */
  readonly client: KubeClient;
  /** The API server and credentials; default `loadKubeConfig()` (tests point it at a fake). */
  readonly kubeConfig?: KubeConfig | undefined;
  /** Test knobs: the coalescing delay and the watch's reconnect backoff. */
  readonly settleMs?: number | undefined;
  readonly backoff?: BackoffConfig | undefined;
}

type DiscoveryFlags = Pick<
  GatewayConfig,
  | 'serviceDiscovery'
  | 'pdDisaggregation'
  | 'selector'
  | 'prefillSelector'
  | 'decodeSelector'
  | 'serviceDiscoveryPort'
  | 'serviceDiscoveryNamespace'
  | 'bootstrapPortAnnotation'
  | 'modelIdFrom'
>;

/** The discovery of `--service-discovery`, or undefined without the flag. */
export function kubernetesDiscoveryFromConfig(
  c: DiscoveryFlags,
  deps: Omit<KubernetesDiscoveryDeps, 'client'> & { readonly client?: KubeClient | undefined },
): KubernetesDiscovery | undefined {
  if (!c.serviceDiscovery) return undefined;
  const { client } = deps;
  if (!client) throw new Error('--service-discovery: the Kubernetes client was not loaded');
  const read: PodReadConfig = {
    pdMode: c.pdDisaggregation,
    selector: parseSelector(c.selector),
    prefillSelector: parseSelector(c.prefillSelector),
    decodeSelector: parseSelector(c.decodeSelector),
    port: c.serviceDiscoveryPort,
    bootstrapPortAnnotation: c.bootstrapPortAnnotation,
    modelIdSource: c.modelIdFrom === undefined ? undefined : parseModelIdSource(c.modelIdFrom),
  };
  return new KubernetesDiscovery(read, c.serviceDiscoveryNamespace, { ...deps, client });
}

export class KubernetesDiscovery {
  readonly #watcher: PodWatcher;
  readonly #reconciler: Reconciler;
  readonly #settleMs: number;
  #settle: Timer | undefined;
  #stopResync: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  readonly #onRemoved = (worker: Worker): void => {
    // A discovered worker that left (drained, or removed as unhealthy) may be wanted again, or
    // was the old pod's at a URL a new pod now holds.
    if (worker.labels[POD_UID_LABEL] !== undefined) this.#requestPass();
  };

  constructor(
    private readonly config: PodReadConfig,
    private readonly namespace: string | undefined,
    private readonly deps: KubernetesDiscoveryDeps,
  ) {
    this.#settleMs = deps.settleMs ?? SETTLE_MS;
    const roles = config.pdMode
      ? [config.prefillSelector, config.decodeSelector]
      : [config.selector];
    this.#watcher = new PodWatcher({
      client: deps.client,
      kubeConfig: deps.kubeConfig ?? loadKubeConfig(deps.client),
      namespace,
      labelSelector: selectorString(serverSelector(roles)),
      clock: deps.clock,
      random: deps.random,
      logger: deps.logger,
      backoff: deps.backoff,
      onChange: () => this.#requestPass(),
    });
    this.#reconciler = new Reconciler(config, {
      registry: deps.registry,
      workers: deps.workers,
      metrics: new DiscoveryMetrics(deps.metrics.registry),
      logger: deps.logger,
      clock: deps.clock,
      requestPass: () => this.#requestPass(),
    });
  }

  start(): void {
    const { config, deps } = this;
    deps.logger.info(
      {
        namespace: this.namespace ?? '(all)',
        selector: config.pdMode ? undefined : selectorString(config.selector),
        prefillSelector: config.pdMode ? selectorString(config.prefillSelector) : undefined,
        decodeSelector: config.pdMode ? selectorString(config.decodeSelector) : undefined,
      },
      'kubernetes service discovery starting',
    );
    deps.registry.on('removed', this.#onRemoved);
    this.#stopResync = every(deps.clock, RESYNC_MS, () => void this.#pass());
    this.#watcher.start();
  }

  /** Stops watching; registered workers stay (shutdown closes them with the gateway). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.deps.clock.clearTimer(this.#settle);
    this.#stopResync?.();
    this.deps.registry.off('removed', this.#onRemoved);
    await this.#watcher.stop();
    await this.#running;
  }

  /** A pass once the burst of changes has settled. */
  #requestPass(): void {
    if (this.#stopped || this.#settle !== undefined) return;
    this.#settle = this.deps.clock.setTimer(
      this.#settleMs,
      () => {
        this.#settle = undefined;
        void this.#pass();
      },
      BACKGROUND,
    );
  }

  /** Runs one pass; passes never overlap (one asked for meanwhile runs right after). */
  async #pass(): Promise<void> {
    // Before the first list the store is empty, and a pass would remove every discovered worker.
    if (this.#stopped || !this.#watcher.synced) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#reconciler
      .reconcile([...this.#watcher.store.values()])
      .catch((err: unknown) =>
        this.deps.logger.error({ err: String(err) }, 'discovery pass failed'),
      )
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          void this.#pass();
        }
      });
    return this.#running;
  }
}
