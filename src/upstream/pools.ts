/**
 * One undici Pool per worker origin. A Pool gives per-worker connection stats and a clean
 * close when the worker leaves; logical workers that share an origin (DP ranks) share a pool,
 * each holding a lease on it.
 */
import type { LookupFunction } from 'node:net';
import { Pool } from 'undici';
import type { GatewayConfig } from '../config/schema.js';
import { MAX_TIMER_MS } from '@switchyard/kit';
import { lease, type Lease } from '../util/lease.js';

/**
 * The undici keep-alive for `--upstream-pool-idle-timeout-secs`. SMG reads 0 as "keep idle
 * connections forever" (no pool idle timeout); undici refuses 0, so 0 becomes the longest timer,
 * and a worker's own `Keep-Alive: timeout=` hint still closes the connection first.
 */
export function keepAliveMsFor(idleTimeoutMs: number): number {
  return idleTimeoutMs > 0 ? idleTimeoutMs : MAX_TIMER_MS;
}

export interface PoolOptions {
  /** Idle keep-alive; must stay below the engine's own keep-alive (uvicorn: 5 s). 0 = no limit. */
  idleTimeoutMs: number;
  /** Upper bound on waiting for a response head and between body chunks. */
  requestTimeoutMs: number;
  /** Resolves worker host names for new connections and refuses forbidden addresses (connect-guard.ts). */
  lookup: LookupFunction;
}

/** `--upstream-pool-idle-timeout-secs` and `--request-timeout-secs`, connecting through `lookup`. */
export function upstreamPoolsFromConfig(
  c: Pick<GatewayConfig, 'upstreamPoolIdleTimeoutSecs' | 'requestTimeoutSecs'>,
  deps: { lookup: LookupFunction },
): UpstreamPools {
  return new UpstreamPools({
    idleTimeoutMs: c.upstreamPoolIdleTimeoutSecs * 1000,
    requestTimeoutMs: c.requestTimeoutSecs * 1000,
    lookup: deps.lookup,
  });
}

interface Entry {
  pool: Pool;
  refs: number;
}

/** A reference on an origin's pool; the last one released closes the pool. */
export interface PoolLease extends Lease {
  readonly pool: Pool;
}

export class UpstreamPools {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly opts: PoolOptions) {}

  /** Takes a reference on the origin's pool, creating it on first use. */
  acquire(origin: string): PoolLease {
    let entry = this.#entries.get(origin);
    if (!entry) {
      entry = {
        pool: new Pool(origin, {
          // Unlimited: a streaming request holds its connection for the whole generation, and
          // concurrency is capped by admission, not by a hidden pool queue.
          connections: null,
          pipelining: 1,
          keepAliveTimeout: keepAliveMsFor(this.opts.idleTimeoutMs),
          keepAliveMaxTimeout: keepAliveMsFor(this.opts.idleTimeoutMs),
          headersTimeout: this.opts.requestTimeoutMs,
          bodyTimeout: this.opts.requestTimeoutMs,
          connectTimeout: 10_000,
          connect: { lookup: this.opts.lookup },
        }),
        refs: 0,
      };
      this.#entries.set(origin, entry);
    }
    entry.refs += 1;
    const held = entry;
    return Object.assign(
      lease(() => this.#drop(origin, held)),
      { pool: held.pool },
    );
  }

  get(origin: string): Pool | undefined {
    return this.#entries.get(origin)?.pool;
  }

  /** Drops a reference; the last one closes the pool after its in-flight requests finish. */
  #drop(origin: string, entry: Entry): void {
    entry.refs -= 1;
    if (entry.refs > 0) return;
    // Only this entry: a pool made for the origin after closeAll is another one.
    if (this.#entries.get(origin) === entry) this.#entries.delete(origin);
    entry.pool.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    const pools = [...this.#entries.values()].map((e) => e.pool);
    this.#entries.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
