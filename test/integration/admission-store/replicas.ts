/**
 * Gateway replicas for the Redis admission-store tests: several RedisStore instances on one
 * real Redis, each as a separate gateway process would hold it, plus a plain client that reads
 * what Redis itself holds, so the tests check Redis's own totals and not only the stores' view.
 */
import { randomBytes } from 'node:crypto';
import { RedisStore, type RedisStoreLogger } from '../../../src/admission/store/redis-store.js';

/** Short enough that lapse tests take about a second; renewals still run every 200 ms. */
export const LEASE_MS = 600;

export interface LogLine {
  readonly level: 'warn' | 'info' | 'error';
  readonly msg: string;
}

export function recordingLogger(): RedisStoreLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    warn: (_obj, msg) => lines.push({ level: 'warn', msg }),
    info: (_obj, msg) => lines.push({ level: 'info', msg }),
    error: (_obj, msg) => lines.push({ level: 'error', msg }),
  };
}

export interface Replica {
  readonly store: RedisStore;
  readonly log: LogLine[];
  /** Every `up` change the store reported, in order. */
  readonly upChanges: boolean[];
  /** Every key `onFreed` was called with, in order. */
  readonly freed: string[];
}

/** Opens `n` stores on the same Redis and namespace, as `n` gateway replicas. */
export async function openReplicas(
  url: string,
  prefix: string,
  n: number,
  opts: { replicas?: number; leaseMs?: number } = {},
): Promise<Replica[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const logger = recordingLogger();
      const store = await RedisStore.open({
        url,
        prefix,
        leaseMs: opts.leaseMs ?? LEASE_MS,
        replicas: opts.replicas,
        logger,
      });
      const replica: Replica = { store, log: logger.lines, upChanges: [], freed: [] };
      store.onUpChange((up) => replica.upChanges.push(up));
      store.onFreed((key) => replica.freed.push(key));
      return replica;
    }),
  );
}

/** A namespace of its own per test, so tests sharing a server never see each other's keys. */
export function testPrefix(): string {
  return `switchyard:test:${randomBytes(4).toString('hex')}:`;
}

export { RedisProbe } from '../../helpers/redis-probe.js';
