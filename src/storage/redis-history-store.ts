/**
 * `--history-backend redis`: the history store in a Redis that replicas share (key layout and
 * scripts in redis-history-scripts.ts, hash fields in redis-history-codec.ts).
 *
 * Nothing waits on a Redis that is gone. A call made while the connection is down fails at
 * once, and one that Redis leaves unanswered fails after COMMAND_TIMEOUT_MS, both as a
 * `HistoryStoreError` the caller answers with a 503. Nothing is resent behind the caller's back:
 * a command that timed out may still run in Redis later, so only the caller, who knows the
 * request failed, decides to try again, and every write is safe to repeat (a hash is replaced
 * whole, a link already made keeps its place). The client reconnects by itself, so the same
 * store works again once Redis is back.
 */
import { Redis, type RedisOptions } from 'ioredis';
import {
  HistoryStoreError,
  type Conversation,
  type HistoryStore,
  type ItemPage,
  type ListItemsQuery,
  type StoredItem,
  type StoredResponse,
} from './history-store.js';
import {
  conversationFields,
  fromPairs,
  itemFields,
  responseFields,
  toConversation,
  toItem,
  toResponse,
} from './redis-history-codec.js';
import {
  HistoryScripts,
  conversationKey,
  itemKey,
  linksKey,
  responseKey,
} from './redis-history-scripts.js';
import type { JsonObject } from '../util/json.js';

/** How long one command may go unanswered before the call fails. */
export const COMMAND_TIMEOUT_MS = 1000;
/** Reconnect backoff doubles from 100 ms up to this cap, and never gives up. */
export const RETRY_CAP_MS = 1000;
/** The retention when `--redis-retention-days` is not given (SMG's default). */
export const DEFAULT_RETENTION_DAYS = 30;
/**
 * The most a page or a chain asks Redis for: the scripts pass the count on to ZRANGE, which
 * takes integers only, so an unbounded one (Infinity) is asked as this many.
 */
const MAX_COUNT = 1_000_000_000;
/** The connection's CLIENT SETNAME, so an operator can tell it apart in CLIENT LIST. */
export const CONNECTION_NAME = 'switchyard-history';

const OPTIONS = {
  connectionName: CONNECTION_NAME,
  // A call made while disconnected fails now instead of queueing until Redis is back: the
  // client is waiting for its answer, and a 503 now beats one after its own timeout.
  enableOfflineQueue: false,
  commandTimeout: COMMAND_TIMEOUT_MS,
  connectTimeout: COMMAND_TIMEOUT_MS,
  // Commands in flight when the connection drops fail at once and are never resent: the caller
  // has already been told the write failed, and a resend would land behind its later writes.
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times - 1, 10), RETRY_CAP_MS),
  // The calls of every request in flight share round trips on the one connection.
  enableAutoPipelining: true,
} satisfies RedisOptions;

export interface RedisHistoryOptions {
  /** `--redis-url`: `redis://` or `rediss://`. */
  readonly url: string;
  /**
   * `--redis-pool-max-size`, at least 1. The store opens one connection whatever it is: ioredis
   * pipelines every concurrent call over it, so no call ever waits for a free connection as it
   * would in SMG's pool of blocking connections, and one connection is within any maximum.
   */
  readonly poolMaxSize: number;
  /** `--redis-retention-days`: undefined is 30 days, a negative number is no expiry. */
  readonly retentionDays: number | undefined;
}

/**
 * Opens the store. It never waits on Redis for long and never fails because Redis is down: it
 * resolves once the first connection attempt has ended either way, and while Redis is away
 * every call rejects with `HistoryStoreError` and `reachable()` answers false. Throws a
 * RangeError for a pool size below 1 or a retention of less than a second but not negative
 * (SMG's EXPIRE 0 would delete every record as soon as it was written).
 */
export async function openRedisHistoryStore(opts: RedisHistoryOptions): Promise<HistoryStore> {
  if (!Number.isSafeInteger(opts.poolMaxSize) || opts.poolMaxSize < 1) {
    throw new RangeError('redis history store: poolMaxSize must be a whole number of at least 1');
  }
  const ttlSeconds = retentionSeconds(opts.retentionDays);
  const redis = new Redis(opts.url, OPTIONS);
  const store = new RedisHistoryStore(redis, ttlSeconds);
  await firstAttempt(redis);
  return store;
}

/** The TTL of every key written, in seconds; 0 for no expiry. */
export function retentionSeconds(days: number | undefined): number {
  const d = days ?? DEFAULT_RETENTION_DAYS;
  if (Number.isNaN(d)) throw new RangeError('redis history store: retentionDays is not a number');
  if (d < 0) return 0;
  const seconds = Math.round(d * 86_400);
  if (seconds < 1 || !Number.isSafeInteger(seconds)) {
    throw new RangeError(
      'redis history store: retentionDays must be negative (no expiry) or at least one second',
    );
  }
  return seconds;
}

/** Resolves when the first connection is ready or has failed, whichever comes first. */
function firstAttempt(redis: Redis): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      redis.off('close', done);
      resolve();
    };
    // connectTimeout ends a silent attempt on its own; this bounds what comes after it.
    const timer = setTimeout(done, COMMAND_TIMEOUT_MS * 2);
    timer.unref();
    redis.once('ready', done);
    redis.once('error', done);
    redis.once('close', done);
  });
}

class RedisHistoryStore implements HistoryStore {
  readonly backend = 'redis' as const;
  readonly #redis: Redis;
  readonly #scripts: HistoryScripts;
  #closed = false;

  constructor(redis: Redis, ttlSeconds: number) {
    this.#redis = redis;
    this.#scripts = new HistoryScripts(redis, ttlSeconds);
    // Errors reach the callers through their rejected calls; without a listener ioredis would
    // throw them from the event emitter and end the process.
    redis.on('error', () => undefined);
  }

  putResponse(response: StoredResponse): Promise<void> {
    return this.#run('putResponse', () =>
      this.#scripts.putHashes([
        { key: responseKey(response.id), fields: responseFields(response) },
      ]),
    );
  }

  getResponse(id: string): Promise<StoredResponse | undefined> {
    return this.#run('getResponse', async () => {
      const key = responseKey(id);
      const h = await this.#redis.hgetall(key);
      return isEmpty(h) ? undefined : toResponse(key, h);
    });
  }

  deleteResponse(id: string): Promise<boolean> {
    return this.#run('deleteResponse', async () => (await this.#redis.del(responseKey(id))) > 0);
  }

  responseChain(id: string, maxDepth: number): Promise<StoredResponse[]> {
    return this.#run('responseChain', async () => {
      const depth = count(maxDepth, 0);
      if (depth === 0) return [];
      const hashes = await this.#scripts.chain(id, depth);
      return hashes.map((pairs) => toResponseFromPairs(pairs)).reverse();
    });
  }

  createConversation(conversation: Conversation): Promise<void> {
    return this.#run('createConversation', () =>
      this.#scripts.putHashes([
        { key: conversationKey(conversation.id), fields: conversationFields(conversation) },
      ]),
    );
  }

  getConversation(id: string): Promise<Conversation | undefined> {
    return this.#run('getConversation', async () => {
      const key = conversationKey(id);
      const h = await this.#redis.hgetall(key);
      return isEmpty(h) ? undefined : toConversation(key, h);
    });
  }

  setConversationMetadata(id: string, metadata: JsonObject): Promise<Conversation | undefined> {
    return this.#run('setConversationMetadata', async () => {
      const pairs = await this.#scripts.setMetadata(id, JSON.stringify(metadata));
      return pairs && toConversation(conversationKey(id), fromPairs(pairs));
    });
  }

  deleteConversation(id: string): Promise<boolean> {
    // The record only: its links stay (until their retention ends), as the interface promises.
    return this.#run(
      'deleteConversation',
      async () => (await this.#redis.del(conversationKey(id))) > 0,
    );
  }

  putItems(items: readonly StoredItem[]): Promise<void> {
    return this.#run('putItems', () =>
      this.#scripts.putHashes(items.map((i) => ({ key: itemKey(i.id), fields: itemFields(i) }))),
    );
  }

  getItem(id: string): Promise<StoredItem | undefined> {
    return this.#run('getItem', async () => {
      const key = itemKey(id);
      const h = await this.#redis.hgetall(key);
      return isEmpty(h) ? undefined : toItem(key, h);
    });
  }

  linkItems(conversationId: string, itemIds: readonly string[]): Promise<void> {
    return this.#run('linkItems', () => this.#scripts.link(conversationId, itemIds));
  }

  isLinked(conversationId: string, itemId: string): Promise<boolean> {
    return this.#run(
      'isLinked',
      async () => (await this.#redis.zscore(linksKey(conversationId), itemId)) !== null,
    );
  }

  listItems(conversationId: string, query: ListItemsQuery): Promise<ItemPage> {
    return this.#run('listItems', async () => {
      const limit = count(query.limit, 1);
      const page = await this.#scripts.listPage(conversationId, query.order, limit, query.after);
      const items = page.hashes.map((pairs) => {
        const h = fromPairs(pairs);
        return toItem(itemKey(h['id'] ?? '?'), h);
      });
      return { items, hasMore: page.hasMore };
    });
  }

  unlinkItem(conversationId: string, itemId: string): Promise<boolean> {
    return this.#run('unlinkItem', () => this.#scripts.unlink(conversationId, itemId));
  }

  async reachable(): Promise<boolean> {
    if (this.#closed || this.#redis.status !== 'ready') return false;
    try {
      return (await this.#redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // QUIT lets the replies already on their way arrive first; then no more reconnects.
    if (this.#redis.status === 'ready') await this.#redis.quit().catch(() => undefined);
    this.#redis.disconnect();
  }

  /** Runs one call, turning every failure (down, timed out, closed, corrupt) into the 503's error. */
  async #run<T>(op: string, call: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new HistoryStoreError('redis', `redis history store: ${op}: closed`);
    try {
      return await call();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new HistoryStoreError('redis', `redis history store: ${op}: ${why}`, { cause: err });
    }
  }
}

/** A whole number from `least` to MAX_COUNT (NaN is `least`). */
function count(n: number, least: number): number {
  return Number.isNaN(n) ? least : Math.min(Math.max(least, Math.floor(n)), MAX_COUNT);
}

function isEmpty(h: Record<string, string>): boolean {
  for (const _ in h) return false;
  return true;
}

function toResponseFromPairs(pairs: readonly string[]): StoredResponse {
  const h = fromPairs(pairs);
  return toResponse(responseKey(h['id'] ?? '?'), h);
}
