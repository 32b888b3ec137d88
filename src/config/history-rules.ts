/**
 * SMG's startup rules of the history backends (data_connector config.rs `PostgresConfig::validate`
 * and `RedisConfig::validate`), checked for the backend chosen only, as SMG checks them: a
 * `--redis-url` left on a command line that runs `--history-backend memory` changes nothing
 * there, so it stops nothing here.
 */
import { redactUrlCredentials } from '../workers/worker-url.js';
import type { GatewayConfig } from './schema.js';

type Rule = (c: GatewayConfig) => string | undefined;

/** The URL's parts, or undefined when it does not parse (a URL must be read once, the same way). */
function parse(raw: string): URL | undefined {
  try {
    return new URL(raw.trim());
  } catch {
    return undefined;
  }
}

/** SMG's Redis URL rule: `redis://` or `rediss://`, with a host. */
export function redisUrlProblem(raw: string): string | undefined {
  const url = parse(raw);
  if (!url) return 'is not a URL';
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    return 'must start with redis:// or rediss://';
  return url.hostname === '' ? 'must name a host' : undefined;
}

/** SMG's Postgres URL rule: `postgres://` or `postgresql://`, with a host and a database name. */
export function postgresUrlProblem(raw: string): string | undefined {
  const url = parse(raw);
  if (!url) return 'is not a URL';
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    return 'must start with postgres:// or postgresql://';
  if (url.hostname === '') return 'must name a host';
  return url.pathname.replace(/^\//, '') === '' ? 'must name a database (/dbname)' : undefined;
}

/** The URL as an error line may show it: a password never reaches a terminal or a CI log. */
const shown = (raw: string): string => redactUrlCredentials(JSON.stringify(raw));

export const HISTORY_RULES: readonly Rule[] = [
  (c) => {
    if (c.historyBackend !== 'redis') return undefined;
    if (c.redisUrl === undefined)
      return '--history-backend redis needs --redis-url redis://host[:port][/db]';
    const problem = redisUrlProblem(c.redisUrl);
    if (problem) return `--redis-url: ${problem} (got ${shown(c.redisUrl)})`;
    if (c.redisPoolMaxSize === 0)
      return '--redis-pool-max-size: must be > 0 with --history-backend redis (got 0)';
    // SMG takes 0 and sets EXPIRE 0, which deletes each record as it is written: a store that
    // keeps nothing while every write looks stored. `--history-backend none` says that openly.
    return c.redisRetentionDays === 0
      ? '--redis-retention-days: 0 would expire every record as it is written; give days to keep, a negative number for no expiry, or --history-backend none (got 0)'
      : undefined;
  },
  (c) => {
    if (c.historyBackend !== 'postgres') return undefined;
    if (c.postgresDbUrl === undefined)
      return '--history-backend postgres needs --postgres-db-url postgres://host[:port]/dbname';
    const problem = postgresUrlProblem(c.postgresDbUrl);
    if (problem) return `--postgres-db-url: ${problem} (got ${shown(c.postgresDbUrl)})`;
    return c.postgresPoolMaxSize === 0
      ? '--postgres-pool-max-size: must be > 0 with --history-backend postgres (got 0)'
      : undefined;
  },
];
