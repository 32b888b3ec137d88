/**
 * Keeps a `PodStore` equal to the API server's pods: list, then watch from the list's
 * resourceVersion; after a dropped watch, watch again from the last version seen (the events in
 * between are replayed by the server); after `410 Gone` (that version was compacted away), list
 * again. Failures wait an exponential backoff; only `list` and `watch` on pods are called.
 *
 * Built on client-node's `Watch` and `CoreV1Api`, not its `ListWatch`/`makeInformer`: in 1.4.0
 * (dist/cache.js) ListWatch stops for good on any error but a 410, reconnects with no delay at
 * all after a clean close, and a `stop()` during a re-list still opens the next watch.
 */
import type { CoreV1Api, KubeConfig, ObservableMiddleware } from '@kubernetes/client-node';
import type { KubeClient } from './kube-client.js';
import type { Clock, Random, Timer } from '@switchyard/kit';
import type { Logger } from '../../observability/logger.js';
import { BACKGROUND } from '../../util/every.js';
import { Backoff, DEFAULT_BACKOFF, type BackoffConfig } from './backoff.js';
import type { PodObject } from './pod.js';
import { PodStore } from './pod-store.js';

export interface PodWatcherOptions {
  readonly client: KubeClient;
  readonly kubeConfig: KubeConfig;
  /** Undefined: every namespace (`/api/v1/pods`). */
  readonly namespace: string | undefined;
  /** The API server's `labelSelector`; empty lists every pod of the namespace. */
  readonly labelSelector: string;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  readonly backoff?: BackoffConfig | undefined;
  /** Called after the store changed: a list replaced it, or an event changed a pod. */
  readonly onChange: () => void;
}

/** How a watch connection ended. */
interface WatchEnd {
  /** Events received (bookmarks included): the connection did useful work. */
  events: number;
  /** The version to resume from is gone (HTTP 410, or a 410 `ERROR` event): list again. */
  gone: boolean;
  error: unknown;
}

/** A list that takes longer than this is abandoned and retried. */
const LIST_TIMEOUT_MS = 60_000;
/** A watch that stayed open this long was healthy, even in a cluster too quiet to send events. */
const HEALTHY_WATCH_MS = 30_000;
/** client-go asks the server to end each watch after 5 to 10 minutes, so a half-open connection cannot hide changes for longer. */
const MIN_WATCH_TIMEOUT_SECS = 300;

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export class PodWatcher {
  readonly store = new PodStore();
  #resourceVersion = '';
  #synced = false;
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;
  readonly #api: CoreV1Api;
  readonly #path: string;

  constructor(private readonly opts: PodWatcherOptions) {
    this.#api = opts.kubeConfig.makeApiClient(opts.client.CoreV1Api);
    this.#path =
      opts.namespace === undefined
        ? '/api/v1/pods'
        : `/api/v1/namespaces/${encodeURIComponent(opts.namespace)}/pods`;
  }

  /** Whether a list has completed: until then the store is not the cluster's view. */
  get synced(): boolean {
    return this.#synced;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Ends the open watch or list and waits for the loop to exit. */
  async stop(): Promise<void> {
    // The open watch or list listens to this signal and ends at once.
    this.#stopping.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { logger, clock } = this.opts;
    const backoff = new Backoff(this.opts.backoff ?? DEFAULT_BACKOFF, this.opts.random);
    while (!this.#stopping.signal.aborted) {
      let progressed = false;
      try {
        if (this.#resourceVersion === '') await this.#list();
        const opened = clock.now();
        const end = await this.#watchOnce();
        progressed = end.events > 0 || clock.now() - opened >= HEALTHY_WATCH_MS;
        if (end.gone) {
          logger.info(
            { path: this.#path },
            'kubernetes pod watch: resourceVersion gone (410), re-listing',
          );
          this.#resourceVersion = '';
        } else if (end.error !== undefined && !this.#stopping.signal.aborted) {
          logger.warn(
            { path: this.#path, err: describe(end.error) },
            'kubernetes pod watch ended with an error; resuming',
          );
        }
      } catch (err) {
        if (this.#stopping.signal.aborted) break;
        logger.error(
          { path: this.#path, err: describe(err) },
          'kubernetes pod list failed (needs list and watch on pods); retrying',
        );
      }
      if (progressed) backoff.reset();
      // A watch that did work resumes at once; anything else waits, so a server that refuses
      // or closes every connection at once is not hammered.
      const delay = progressed ? 0 : backoff.next();
      await this.#sleep(delay);
    }
  }

  async #list(): Promise<void> {
    const { namespace, labelSelector } = this.opts;
    const abort = new AbortController();
    const onStop = (): void => abort.abort();
    this.#stopping.signal.addEventListener('abort', onStop, { once: true });
    const timer = this.opts.clock.setTimer(LIST_TIMEOUT_MS, () => abort.abort(), BACKGROUND);
    // The generated client takes a signal only through a per-call middleware.
    const { Observable } = this.opts.client;
    const withSignal: ObservableMiddleware = {
      pre: (context) => {
        context.setSignal(abort.signal);
        return new Observable(Promise.resolve(context));
      },
      post: (response) => new Observable(Promise.resolve(response)),
    };
    const options = { middleware: [withSignal], middlewareMergeStrategy: 'append' as const };
    const selector = labelSelector === '' ? {} : { labelSelector };
    try {
      const list =
        namespace === undefined
          ? await this.#api.listPodForAllNamespaces(selector, options)
          : await this.#api.listNamespacedPod({ namespace, ...selector }, options);
      this.store.replace(list.items);
      this.#resourceVersion = list.metadata?.resourceVersion ?? '';
    } finally {
      this.opts.clock.clearTimer(timer);
      this.#stopping.signal.removeEventListener('abort', onStop);
    }
    if (!this.#synced) {
      this.#synced = true;
      this.opts.logger.info(
        { path: this.#path, pods: this.store.size },
        'kubernetes pods listed; watching',
      );
    }
    this.opts.onChange();
  }

  /** One watch connection, from the current resourceVersion until it ends. */
  #watchOnce(): Promise<WatchEnd> {
    const end: WatchEnd = { events: 0, gone: false, error: undefined };
    let closedByUs = false;
    let controller: AbortController | undefined;
    const close = (): void => {
      closedByUs = true;
      controller?.abort();
    };
    return new Promise<WatchEnd>((settle) => {
      // On stop the loop need not wait for a connection attempt the server never answers: the
      // attempt is aborted as soon as its controller exists.
      const onStop = (): void => {
        close();
        resolve(end);
      };
      const resolve = (value: WatchEnd): void => {
        this.#stopping.signal.removeEventListener('abort', onStop);
        settle(value);
      };
      this.#stopping.signal.addEventListener('abort', onStop, { once: true });
      const onEvent = (type: string, object: unknown): void => {
        if (closedByUs) return;
        const outcome = this.#onEvent(type as WatchEventType, object);
        if (outcome === 'event') end.events += 1;
        else if (outcome !== 'ignored') {
          // An ERROR event ends the watch (the API server closes it next); close it here too.
          if (outcome === 'gone') end.gone = true;
          else end.error = outcome.error;
          close();
        }
      };
      const onDone = (err: unknown): void => {
        if (!closedByUs && err != null) {
          if ((err as { statusCode?: number }).statusCode === 410) end.gone = true;
          else end.error = err;
        }
        resolve(end);
      };
      const params: Record<string, string | number | boolean> = {
        resourceVersion: this.#resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(MIN_WATCH_TIMEOUT_SECS * (1 + this.opts.random.next())),
      };
      if (this.opts.labelSelector !== '') params.labelSelector = this.opts.labelSelector;
      new this.opts.client.Watch(this.opts.kubeConfig)
        .watch(this.#path, params, onEvent, onDone)
        .then(
          (c) => {
            controller = c;
            if (closedByUs || this.#stopping.signal.aborted) c.abort();
          },
          (err: unknown) => {
            // No cluster in the config, or its credentials could not be read.
            end.error = err;
            resolve(end);
          },
        );
    });
  }

  /** Applies one event; says whether it counted, was a 410, or was an error. */
  #onEvent(type: WatchEventType, object: unknown): 'event' | 'ignored' | 'gone' | { error: Error } {
    if (type === 'ERROR') {
      // The object is a Status: `code` 410 means "too old resource version".
      const status = object as { code?: number; message?: string } | undefined;
      if (status?.code === 410) return 'gone';
      return { error: new Error(`watch ERROR ${status?.code ?? '?'}: ${status?.message ?? ''}`) };
    }
    const pod = object as PodObject | undefined;
    const version = pod?.metadata?.resourceVersion;
    if (version === undefined) return 'ignored';
    this.#resourceVersion = version;
    if (type === 'BOOKMARK') return 'event';
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return 'ignored';
    this.store.apply(type, pod as PodObject);
    this.opts.onChange();
    return 'event';
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: Timer | undefined = undefined;
      const wake = (): void => {
        this.opts.clock.clearTimer(timer);
        this.#stopping.signal.removeEventListener('abort', wake);
        resolve();
      };
      this.#stopping.signal.addEventListener('abort', wake, { once: true });
      timer = this.opts.clock.setTimer(ms, wake, BACKGROUND);
    });
  }
}

/**
 * An error for a log line. The generated client's errors carry the HTTP code and the API
 * server's Status, whose message says what was refused (e.g. the RBAC verb missing).
 */
function describe(err: unknown): string {
  const { code, body } = err as { code?: unknown; body?: unknown };
  if (typeof code === 'number') {
    let status = body;
    if (typeof body === 'string') {
      try {
        status = JSON.parse(body) as unknown;
      } catch {
        status = body;
      }
    }
    const message = (status as { message?: unknown } | undefined)?.message;
    return `HTTP ${code}: ${typeof message === 'string' ? message : String(body)}`;
  }
  return err instanceof Error ? err.message : String(err);
}
