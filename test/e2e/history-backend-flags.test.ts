// The history backend flags on the real binary: Oracle exits 2 with one line naming the
// backends there are, and a Redis or Postgres backend without its URL exits 2 with one line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, runMain } from '../helpers/cli.js';

test("'--history-backend oracle' exits 2 naming the backends Switchyard has", () => {
  const { status, stderr } = runCli(['launch', '--history-backend', 'oracle']);
  assert.equal(status, 2);
  assert.equal(
    stderr,
    'switchyard launch: --history-backend oracle: the Oracle history backend (Switchyard has memory, none, redis, postgres) is not supported by Switchyard (see docs/compat.md)\n',
  );
});

test('a Redis or Postgres backend without its URL exits 2 with one line', async () => {
  for (const [backend, line] of [
    ['redis', '--history-backend redis needs --redis-url redis://host[:port][/db]'],
    [
      'postgres',
      '--history-backend postgres needs --postgres-db-url postgres://host[:port]/dbname',
    ],
  ] as const) {
    const { status, stderr } = await runMain(['launch', '--history-backend', backend]);
    assert.equal(status, 2, backend);
    assert.equal(stderr, `switchyard launch: ${line}\n`);
  }
});

test("a refused URL's password stays off the terminal", async () => {
  const { status, stderr } = await runMain([
    'launch',
    '--history-backend',
    'postgres',
    '--postgres-db-url',
    'postgres://app:hunter2@db:5432',
  ]);
  assert.equal(status, 2);
  assert.equal(
    stderr,
    'switchyard launch: --postgres-db-url: must name a database (/dbname) (got "postgres://***@db:5432")\n',
  );
});
