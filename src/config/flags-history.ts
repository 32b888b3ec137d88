/**
 * History storage flags: where the Responses and Conversations APIs keep stored responses,
 * conversations and their items (`--history-backend`), SMG's connection flags of the Redis and
 * Postgres backends, and Switchyard's bounds on the memory backend. The URL and pool rules apply
 * only to the backend chosen, as SMG checks only that one (history-rules.ts).
 */
import type { CoreFlag } from './core-flag.js';
import { u64 } from './flag-status.js';

/** The backends Switchyard has; SMG's `oracle` is refused with one line that lists these. */
export const HISTORY_BACKENDS = ['memory', 'none', 'redis', 'postgres'] as const;

/** An integer a JavaScript number holds exactly: SMG's i64, short of its last bits. */
function wholeNumber(value: string): string | undefined {
  return Number.isSafeInteger(Number(value)) ? undefined : 'expects an integer';
}

export const HISTORY_FLAGS: readonly CoreFlag[] = [
  {
    name: 'history-backend',
    key: 'historyBackend',
    kind: 'enum',
    // SMG's order of values, so `--help` lists what SMG lists.
    choices: ['memory', 'none', 'oracle', 'postgres', 'redis'],
    default: 'memory',
    help: 'Where stored responses and conversations live: memory (this process, bounded), none (nothing kept), redis or postgres (shared by every replica)',
    unsupportedValues: {
      values: ['oracle'],
      subsystem: `the Oracle history backend (Switchyard has ${HISTORY_BACKENDS.join(', ')})`,
    },
  },
  {
    name: 'redis-url',
    key: 'redisUrl',
    kind: 'string',
    metavar: '<redis://[:password@]host[:port][/db]>',
    help: 'Redis of --history-backend redis (redis:// or rediss://)',
  },
  {
    name: 'redis-pool-max-size',
    key: 'redisPoolMaxSize',
    kind: 'int',
    default: 16,
    check: u64,
    help: 'Redis connection pool size; must be > 0 (accepted for SMG parity: one multiplexed connection carries every command)',
  },
  {
    name: 'redis-retention-days',
    key: 'redisRetentionDays',
    kind: 'int',
    check: wholeNumber,
    help: 'Days a stored response, conversation or item lives in Redis after its last write (default 30; negative = forever)',
  },
  {
    name: 'postgres-db-url',
    key: 'postgresDbUrl',
    kind: 'string',
    metavar: '<postgres://[user[:password]@]host[:port]/dbname>',
    help: 'Postgres of --history-backend postgres (postgres:// or postgresql://, with a database name)',
  },
  {
    name: 'postgres-pool-max-size',
    key: 'postgresPoolMaxSize',
    kind: 'int',
    default: 16,
    check: u64,
    help: 'Postgres connection pool size; must be > 0',
  },
  {
    name: 'history-memory-max-responses',
    key: 'historyMemoryMaxResponses',
    kind: 'int',
    default: 10_000,
    help: 'Memory backend: stored responses kept, oldest dropped first (Switchyard-only; SMG keeps all)',
    status: 'switchyard-only',
  },
  {
    name: 'history-memory-max-conversations',
    key: 'historyMemoryMaxConversations',
    kind: 'int',
    default: 10_000,
    help: 'Memory backend: conversations kept, oldest dropped first with their items (Switchyard-only; SMG keeps all)',
    status: 'switchyard-only',
  },
];
