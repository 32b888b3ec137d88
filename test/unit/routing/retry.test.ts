import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import {
  backoffMs,
  executeWithRetry,
  type AttemptResult,
  type RetryConfig,
} from '../../../src/routing/retry.js';
import { seededRandom } from '../../../src/util/random.js';

const cfg: RetryConfig = {
  maxAttempts: 5,
  initialBackoffMs: 50,
  maxBackoffMs: 30_000,
  multiplier: 1.5,
  jitter: 0,
};

test('backoff follows min(initial * multiplier^i, max): 50, 75, 112.5, 168.75', () => {
  const r = seededRandom(1);
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => backoffMs(i, cfg, r)),
    [50, 75, 112.5, 168.75],
  );
  assert.equal(backoffMs(40, cfg, r), 30_000);
});

test('jitter stays within ±j of the base', () => {
  const r = seededRandom(2);
  for (let i = 0; i < 1000; i++) {
    const d = backoffMs(0, { ...cfg, jitter: 0.2 }, r);
    assert.ok(d >= 40 && d <= 60, String(d));
  }
});

const retry = (reason: string): AttemptResult => ({
  kind: 'retry',
  reason,
  error: new GatewayError('call_upstream_connection_failed', reason),
});
const hooks = () => {
  const seen = { retries: 0, exhausted: 0 };
  return {
    seen,
    hooks: { onRetry: () => void seen.retries++, onExhausted: () => void seen.exhausted++ },
  };
};

test('max attempts counts every send; the last error is thrown', async () => {
  const { seen, hooks: h } = hooks();
  let calls = 0;
  await assert.rejects(
    executeWithRetry(
      async () => (calls++, retry('x')),
      { ...cfg, initialBackoffMs: 0 },
      seededRandom(1),
      new AbortController().signal,
      h,
    ),
    /x/,
  );
  assert.equal(calls, 5);
  assert.deepEqual(seen, { retries: 4, exhausted: 1 });
});

test('stops at the first done; isLast is true only on the last attempt', async () => {
  const lasts: boolean[] = [];
  const { hooks: h } = hooks();
  await executeWithRetry(
    async (i, isLast) => (lasts.push(isLast), i < 2 ? retry('x') : { kind: 'done' }),
    { ...cfg, maxAttempts: 3, initialBackoffMs: 0 },
    seededRandom(1),
    new AbortController().signal,
    h,
  );
  assert.deepEqual(lasts, [false, false, true]);
});

test('a client abort during backoff ends the loop', async () => {
  const ac = new AbortController();
  const { hooks: h } = hooks();
  let calls = 0;
  const run = executeWithRetry(
    async () => (calls++, retry('y')),
    { ...cfg, initialBackoffMs: 60_000 },
    seededRandom(1),
    ac.signal,
    h,
  );
  ac.abort();
  await assert.rejects(run, /y/);
  assert.equal(calls, 1);
});
