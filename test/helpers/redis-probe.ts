/** A plain Redis client that reads what Redis itself holds for an admission pool key. */
import { Redis } from 'ioredis';
import { redisKeysOf } from '../../src/admission/store/redis-scripts.js';

/** Reads a key's structures straight from Redis. */
export class RedisProbe {
  readonly #redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.#redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    this.#redis.on('error', () => undefined);
  }

  async connect(): Promise<void> {
    if (this.#redis.status !== 'ready') await this.#redis.connect();
  }

  async total(key: string): Promise<number> {
    await this.connect();
    return Number((await this.#redis.get(redisKeysOf(this.prefix, key)[2])) ?? 0);
  }

  /** Ticket id -> units, as Redis holds them. */
  async tickets(key: string): Promise<Record<string, number>> {
    await this.connect();
    const raw = await this.#redis.hgetall(redisKeysOf(this.prefix, key)[1]);
    return Object.fromEntries(Object.entries(raw).map(([id, units]) => [id, Number(units)]));
  }

  /** Whether any of the key's three structures still exists. */
  async exists(key: string): Promise<boolean> {
    await this.connect();
    return (await this.#redis.exists(...redisKeysOf(this.prefix, key))) > 0;
  }

  /** Runs a raw command (CLIENT PAUSE and such). */
  async call(...args: [string, ...(string | number)[]]): Promise<unknown> {
    await this.connect();
    return this.#redis.call(...args);
  }

  close(): void {
    this.#redis.disconnect();
  }
}
