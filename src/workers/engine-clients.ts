/**
 * One `EngineClient` per gRPC engine, keyed by worker URL (the DP ranks of one engine share
 * it): dialled on first use, closed exactly once: when the last registered worker at that URL
 * leaves, when a registration finds another runtime there, or when the gateway closes.
 * The gRPC pipeline gets a worker's client with `clients.get(worker)`.
 */
import type { EngineClient, EngineRuntime } from '../engine/types.js';
import type { WorkerRegistry } from './registry.js';
import type { Worker } from './worker.js';
import { isEngineRuntime, type GrpcConnector } from './grpc-connector.js';

interface Entry {
  readonly runtime: EngineRuntime;
  readonly client: EngineClient;
}

export class EngineClients {
  readonly #byUrl = new Map<string, Entry>();
  #registry: WorkerRegistry | undefined;
  #closed = false;

  constructor(private readonly connector: GrpcConnector) {}

  /**
   * The client of a gRPC worker, dialled on first use. Throws for an HTTP worker, a runtime
   * without a gRPC client, or after `closeAll`.
   */
  get(worker: Pick<Worker, 'url' | 'runtime' | 'connectionMode'>): EngineClient {
    if (worker.connectionMode !== 'grpc') {
      throw new Error(`Worker ${worker.url} is an HTTP worker; it has no gRPC engine client`);
    }
    if (!isEngineRuntime(worker.runtime)) {
      throw new Error(
        `Worker ${worker.url} has runtime ${worker.runtime}, which has no gRPC client`,
      );
    }
    return this.forUrl(worker.url, worker.runtime);
  }

  /**
   * The client for `url` speaking `runtime` (registration asks before the worker exists). A
   * client for another runtime at the same URL is closed and replaced.
   */
  forUrl(url: string, runtime: EngineRuntime): EngineClient {
    if (this.#closed) throw new Error('the gateway is closing; no new gRPC clients');
    const entry = this.#byUrl.get(url);
    if (entry?.runtime === runtime) return entry.client;
    if (entry) this.close(url);
    const client = this.connector.connect(url, runtime);
    this.#byUrl.set(url, { runtime, client });
    return client;
  }

  /** Runtime detection at `url` (the connector's `detect`), for the registration job. */
  detect(
    url: string,
    hint: EngineRuntime | undefined,
    timeoutMs: number,
  ): Promise<EngineRuntime | undefined> {
    return this.connector.detect(url, hint, timeoutMs);
  }

  /** Whether a client for `url` is open (tests and leak checks). */
  has(url: string): boolean {
    return this.#byUrl.has(url);
  }

  get size(): number {
    return this.#byUrl.size;
  }

  /** Closes the client for `url` unless a registered worker still uses it. */
  release(url: string): void {
    if (this.#registry?.all().some((w) => w.url === url)) return;
    this.close(url);
  }

  /** Closes the client for `url` now (a failed registration, a runtime change). */
  close(url: string): void {
    const entry = this.#byUrl.get(url);
    if (!entry) return;
    this.#byUrl.delete(url);
    entry.client.close();
  }

  /** Follows the registry: a removed worker's client closes once no rank at its URL is left. */
  attach(registry: WorkerRegistry): void {
    this.#registry = registry;
    registry.on('removed', (w) => {
      if (w.connectionMode === 'grpc') this.release(w.url);
    });
    // A re-registration that found another runtime already swapped the client (`forUrl`).
    registry.on('replaced', (prev, next) => {
      if (prev.connectionMode === 'grpc' && next.connectionMode !== 'grpc') this.release(prev.url);
    });
  }

  /** Closes every client (gateway shutdown); later `get` calls throw. */
  closeAll(): void {
    this.#closed = true;
    for (const url of [...this.#byUrl.keys()]) this.close(url);
  }
}
