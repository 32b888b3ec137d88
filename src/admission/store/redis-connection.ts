/**
 * The ioredis connections of the Redis admission store, configured so that nothing waits on a
 * Redis that is gone: the store answers from its fallback instead (redis-store.ts).
 */
import { Redis, type RedisOptions } from 'ioredis';

/** How long one command may go unanswered before the store counts Redis as unreachable. */
export const COMMAND_TIMEOUT_MS = 1000;
/** Reconnect backoff doubles from 100 ms up to this cap, and never gives up. */
export const RETRY_CAP_MS = 1000;

const OPTIONS = {
  // A command issued while disconnected fails at once instead of queueing until Redis is back:
  // an admission answer that arrives seconds late is worse than the fallback's answer now.
  enableOfflineQueue: false,
  commandTimeout: COMMAND_TIMEOUT_MS,
  connectTimeout: COMMAND_TIMEOUT_MS,
  // Commands in flight when the connection drops fail at once and are never resent: a resent
  // take or adopt could land after newer commands of the same ticket. The ledger resends what
  // matters itself, in order.
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times - 1, 10), RETRY_CAP_MS),
  // Concurrent takes and give-backs issued in one tick share one round trip.
  enableAutoPipelining: true,
  // The subscriber resubscribes itself on 'ready', so it knows when messages may have been lost.
  autoResubscribe: false,
} satisfies RedisOptions;

export interface Connections {
  /** Scripts: takes, give-backs, renewals, adoptions. */
  readonly cmd: Redis;
  /** Pub/sub: a subscribed connection cannot run scripts. */
  readonly sub: Redis;
}

export function connect(url: string): Connections {
  const cmd = new Redis(url, OPTIONS);
  const sub = new Redis(url, { ...OPTIONS, enableAutoPipelining: false });
  return { cmd, sub };
}

/** Ends a connection: QUIT when connected (pending replies arrive first), then no reconnects. */
export async function quit(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => undefined);
  redis.disconnect();
}
