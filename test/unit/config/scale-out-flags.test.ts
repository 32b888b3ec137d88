// The scale-out flags: defaults, the Redis URL's form, and the Redis-only options refused
// without a Redis store (a lease or replica count with nothing to apply to is a mistake).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '@switchyard/kit';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';

const build = (args: string[]) => resolveLaunchFlags(args).config;

test('defaults: one process, no shared store, 30 s leases', () => {
  const c = build([]);
  assert.equal(c.workers, 1);
  assert.equal(c.admissionStore, undefined);
  assert.equal(c.admissionLeaseSecs, 30);
  assert.equal(c.admissionReplicas, undefined);
});

test('a Redis store with its lease and replica count', () => {
  const c = build([
    '--workers',
    '4',
    '--admission-store',
    'redis://:secret@redis.llm.svc:6379/2',
    '--admission-lease-secs',
    '10',
    '--admission-replicas',
    '3',
  ]);
  assert.equal(c.workers, 4);
  assert.equal(c.admissionStore, 'redis://:secret@redis.llm.svc:6379/2');
  assert.equal(c.admissionLeaseSecs, 10);
  assert.equal(c.admissionReplicas, 3);
  assert.equal(build(['--admission-store', 'rediss://r:6380']).admissionStore, 'rediss://r:6380');
});

test('refused: a store that is not redis://, a bad db, zero workers or replicas', () => {
  for (const args of [
    ['--admission-store', 'http://redis:6379'],
    ['--admission-store', 'redis://'],
    ['--admission-store', 'redis://r:6379/zero'],
    ['--admission-store', 'not a url'],
    ['--workers', '0'],
    ['--admission-store', 'redis://r:6379', '--admission-replicas', '0'],
    ['--admission-store', 'redis://r:6379', '--admission-lease-secs', '0'],
  ]) {
    assert.throws(() => build(args), UsageError, args.join(' '));
  }
});

test("a refused store URL's password is not echoed", () => {
  assert.throws(
    () => build(['--admission-store', 'redis://:hunter2@r:6379/x']),
    (err: Error) => err instanceof UsageError && !err.message.includes('hunter2'),
  );
});

test('the lease and replica options need a Redis store', () => {
  for (const args of [
    ['--admission-lease-secs', '10'],
    ['--admission-replicas', '3'],
  ]) {
    assert.throws(() => build(args), /need --admission-store/, args.join(' '));
  }
});
