// The history storage flags: defaults, SMG's URL and pool rules for the backend chosen (and only
// for it, as SMG), the backend's URL required, and Oracle refused with one line naming the
// backends there are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '@switchyard/kit';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';

const build = (args: string[]) => resolveLaunchFlags(args).config;

function refusal(args: string[]): string {
  try {
    build(args);
  } catch (err) {
    assert.ok(err instanceof UsageError, `expected a UsageError, got ${String(err)}`);
    return err.message;
  }
  return assert.fail(`'${args.join(' ')}' was accepted`);
}

test('defaults: the bounded memory backend, SMG pool sizes, retention unset', () => {
  const c = build([]);
  assert.equal(c.historyBackend, 'memory');
  assert.equal(c.historyMemoryMaxResponses, 10_000);
  assert.equal(c.historyMemoryMaxConversations, 10_000);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.redisPoolMaxSize, 16);
  assert.equal(c.redisRetentionDays, undefined);
  assert.equal(c.postgresDbUrl, undefined);
  assert.equal(c.postgresPoolMaxSize, 16);
});

test('each backend with its settings', () => {
  assert.equal(build(['--history-backend', 'none']).historyBackend, 'none');
  const memory = build([
    '--history-memory-max-responses',
    '5',
    '--history-memory-max-conversations',
    '7',
  ]);
  assert.equal(memory.historyMemoryMaxResponses, 5);
  assert.equal(memory.historyMemoryMaxConversations, 7);
  const redis = build([
    '--history-backend',
    'redis',
    '--redis-url',
    'rediss://:secret@redis.llm.svc:6380/2',
    '--redis-pool-max-size',
    '4',
    '--redis-retention-days',
    '-1',
  ]);
  assert.equal(redis.historyBackend, 'redis');
  assert.equal(redis.redisUrl, 'rediss://:secret@redis.llm.svc:6380/2');
  assert.equal(redis.redisPoolMaxSize, 4);
  assert.equal(redis.redisRetentionDays, -1);
  assert.equal(
    build(['--history-backend', 'redis', '--redis-url', 'redis://r']).redisUrl,
    'redis://r',
  );
  const pg = build([
    '--history-backend',
    'postgres',
    '--postgres-db-url',
    'postgresql://app:pw@db:5432/history?sslmode=disable',
    '--postgres-pool-max-size',
    '8',
  ]);
  assert.equal(pg.historyBackend, 'postgres');
  assert.equal(pg.postgresDbUrl, 'postgresql://app:pw@db:5432/history?sslmode=disable');
  assert.equal(pg.postgresPoolMaxSize, 8);
  assert.equal(
    build(['--history-backend', 'postgres', '--postgres-db-url', 'postgres://db/h']).postgresDbUrl,
    'postgres://db/h',
  );
});

test('oracle is refused with one line naming the backends Switchyard has', () => {
  assert.equal(
    refusal(['--history-backend', 'oracle']),
    '--history-backend oracle: the Oracle history backend (Switchyard has memory, none, redis, postgres) is not supported by Switchyard (see docs/compat.md)',
  );
  assert.match(
    refusal(['--oracle-dsn', 'x']),
    /^--oracle-dsn: the Oracle history backend is not supported/,
  );
  assert.match(refusal(['--schema-config', 's.yaml']), /^--schema-config: .* is not supported/);
});

test('a Redis or Postgres backend needs its URL', () => {
  assert.equal(
    refusal(['--history-backend', 'redis']),
    '--history-backend redis needs --redis-url redis://host[:port][/db]',
  );
  assert.equal(
    refusal(['--history-backend', 'postgres', '--redis-url', 'redis://r']),
    '--history-backend postgres needs --postgres-db-url postgres://host[:port]/dbname',
  );
});

test("SMG's Redis URL rule: redis:// or rediss://, with a host", () => {
  for (const [url, rule] of [
    ['http://r:6379', 'must start with redis:// or rediss://'],
    ['redis://', 'must name a host'],
    ['redis:///0', 'must name a host'],
    ['not a url', 'is not a URL'],
    ['', 'is not a URL'],
  ] as const) {
    assert.equal(
      refusal(['--history-backend', 'redis', '--redis-url', url]),
      `--redis-url: ${rule} (got ${JSON.stringify(url)})`,
    );
  }
});

test("SMG's Postgres URL rule: postgres:// or postgresql://, with a host and a database", () => {
  for (const [url, rule] of [
    ['mysql://db/h', 'must start with postgres:// or postgresql://'],
    ['postgres:///h', 'must name a host'],
    ['postgres://db', 'must name a database (/dbname)'],
    ['postgres://db:5432/', 'must name a database (/dbname)'],
    ['db:5432/h', 'must start with postgres:// or postgresql://'],
  ] as const) {
    assert.equal(
      refusal(['--history-backend', 'postgres', '--postgres-db-url', url]),
      `--postgres-db-url: ${rule} (got ${JSON.stringify(url)})`,
    );
  }
});

test("a refused URL's password is not echoed", () => {
  for (const args of [
    ['--history-backend', 'redis', '--redis-url', 'http://:hunter2@r:6379'],
    ['--history-backend', 'postgres', '--postgres-db-url', 'postgres://u:hunter2@db'],
  ]) {
    const message = refusal(args);
    assert.doesNotMatch(message, /hunter2/, message);
    assert.match(message, /\*\*\*@/, message);
  }
});

test('a pool of 0 is refused for the backend in use', () => {
  assert.equal(
    refusal([
      '--history-backend',
      'redis',
      '--redis-url',
      'redis://r',
      '--redis-pool-max-size',
      '0',
    ]),
    '--redis-pool-max-size: must be > 0 with --history-backend redis (got 0)',
  );
  assert.equal(
    refusal([
      '--history-backend',
      'postgres',
      '--postgres-db-url',
      'postgres://db/h',
      '--postgres-pool-max-size',
      '0',
    ]),
    '--postgres-pool-max-size: must be > 0 with --history-backend postgres (got 0)',
  );
  assert.match(refusal(['--redis-pool-max-size', '-1']), /expects a non-negative integer/);
});

test('the settings of a backend not in use are not checked, as SMG does not check them', () => {
  const c = build([
    '--redis-url',
    'http://not-redis',
    '--redis-pool-max-size',
    '0',
    '--postgres-db-url',
    'postgres://db',
    '--postgres-pool-max-size',
    '0',
  ]);
  assert.equal(c.historyBackend, 'memory');
  assert.equal(
    build(['--history-backend', 'redis', '--redis-url', 'redis://r', '--postgres-db-url', 'x'])
      .historyBackend,
    'redis',
  );
});

test('the memory bounds are whole numbers of at least 1', () => {
  for (const args of [
    ['--history-memory-max-responses', '0'],
    ['--history-memory-max-conversations', '0'],
    ['--history-memory-max-conversations', '-5'],
  ]) {
    assert.match(refusal(args), new RegExp(`^${args[0]}: `), args.join(' '));
  }
  assert.match(refusal(['--history-memory-max-responses', '1.5']), /expects an integer/);
});

test('a retention of 0 days is refused: SMG would expire every record as it is written', () => {
  assert.match(
    refusal([
      '--history-backend',
      'redis',
      '--redis-url',
      'redis://r',
      '--redis-retention-days',
      '0',
    ]),
    /^--redis-retention-days: 0 would expire every record as it is written/,
  );
  assert.equal(build(['--redis-retention-days', '0']).redisRetentionDays, 0);
  assert.equal(
    build(['--history-backend', 'redis', '--redis-url', 'redis://r', '--redis-retention-days', '7'])
      .redisRetentionDays,
    7,
  );
});
