/**
 * What a caller passes to `RedisStore.open` and reads back from `status()`. The caller (the
 * server's wiring) maps `up` to the `smg_admission_store_up` gauge; the store itself has no
 * metrics.
 */
import type { Clock } from '@switchyard/kit';

/** The pino methods the store logs with. */
export interface RedisStoreLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RedisStoreOptions {
  /** `redis://[user:pass@]host:port[/db]` (or `rediss://`). */
  url: string;
  /** How long a ticket outlives its last renewal; a crashed replica's claims free after this. */
  leaseMs: number;
  /** Gateway replicas sharing the store: while Redis is down each admits limit / replicas. */
  replicas?: number | undefined;
  logger?: RedisStoreLogger | undefined;
  /** Arms the renewal and open timers; lease expiry itself is Redis server time. */
  clock?: Clock | undefined;
  /** Namespace of every key and the channel; default `switchyard:admission:`. */
  prefix?: string | undefined;
}

/** What the caller maps to `smg_admission_store_up` and logs; no metrics here. */
export interface RedisStoreStatus {
  readonly up: boolean;
  /** Tickets this process holds. */
  readonly tickets: number;
  /** Lowered tickets Redis has not been told about yet. */
  readonly pendingGiveBacks: number;
}

/** open() waits this long for Redis before starting down. */
export const OPEN_WAIT_MS = 2000;
export const DEFAULT_PREFIX = 'switchyard:admission:';

export const silent: RedisStoreLogger = {
  warn: () => undefined,
  info: () => undefined,
  error: () => undefined,
};
