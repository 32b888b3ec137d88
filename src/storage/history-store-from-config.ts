/**
 * Opens the history store `--history-backend` names. The Redis and Postgres backends are
 * imported only when chosen, so a gateway on the memory backend never loads their clients.
 */
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { HistoryStore } from './history-store.js';
import { MemoryHistoryStore } from './memory-history-store.js';
import { NoneHistoryStore } from './none-history-store.js';

type HistoryConfig = Pick<
  GatewayConfig,
  | 'historyBackend'
  | 'historyMemoryMaxResponses'
  | 'historyMemoryMaxConversations'
  | 'redisUrl'
  | 'redisPoolMaxSize'
  | 'redisRetentionDays'
  | 'postgresDbUrl'
  | 'postgresPoolMaxSize'
  | 'workers'
>;

/**
 * The stores that live in this process (`memory`, `none`), built at once; undefined for the
 * backends that must connect first (`historyStoreFromConfig` opens those).
 */
export function localHistoryStore(config: HistoryConfig): HistoryStore | undefined {
  switch (config.historyBackend) {
    case 'memory':
      return new MemoryHistoryStore({
        maxResponses: config.historyMemoryMaxResponses,
        maxConversations: config.historyMemoryMaxConversations,
      });
    case 'none':
      return new NoneHistoryStore();
    case 'redis':
    case 'postgres':
      return undefined;
  }
}

/**
 * The configured store, opened. A Redis or Postgres that is down does not stop startup: the
 * store opens anyway, answers `HistoryStoreError` (503 to the client) while the backend is away,
 * and `/readiness` reports it unreachable.
 */
export async function historyStoreFromConfig(
  config: HistoryConfig,
  deps: { logger: Logger },
): Promise<HistoryStore> {
  if (config.historyBackend === 'memory' && config.workers > 1) {
    // Each process of `--workers N` has its own memory: a response stored through one is not
    // found through another, and the primary spreads connections over them.
    deps.logger.warn(
      { workers: config.workers },
      'each gateway process keeps its own memory history store: a stored response or conversation is found only by the process that stored it; use --history-backend redis or postgres to share them',
    );
  }
  const local = localHistoryStore(config);
  if (local) return local;
  if (config.historyBackend === 'redis') {
    const { openRedisHistoryStore } = await import('./redis-history-store.js');
    return openRedisHistoryStore({
      url: required(config.redisUrl, '--redis-url'),
      poolMaxSize: config.redisPoolMaxSize,
      retentionDays: config.redisRetentionDays,
    });
  }
  const { openPostgresHistoryStore } = await import('./postgres-history-store.js');
  return openPostgresHistoryStore({
    url: required(config.postgresDbUrl, '--postgres-db-url'),
    poolMaxSize: config.postgresPoolMaxSize,
    logger: deps.logger,
  });
}

/** The config rules require the URL of the backend chosen (history-rules.ts). */
function required(url: string | undefined, flag: string): string {
  if (url === undefined) throw new Error(`${flag} is required by the history backend chosen`);
  return url;
}
