// The retry decorator as a plain function of answers: no HTTP, no sockets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { Answer } from '../../../src/routing/answer.js';
import { backoffMs, withRetry, type RetryConfig } from '../../../src/routing/retry.js';
import { seededRandom } from '@switchyard/kit';
import { LeaseLog, testAnswer } from '../../helpers/answers.js';

const cfg: RetryConfig = {
  maxAttempts: 5,
  initialBackoffMs: 50,
  maxBackoffMs: 30_000,
  multiplier: 1.5,
  jitter: 0,
};
const fast = { ...cfg, initialBackoffMs: 0 };

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

function deps(signal = new AbortController().signal) {
  const seen = { retries: [] as string[], exhausted: [] as string[] };
  return {
    seen,
    deps: {
      random: seededRandom(1),
      signal,
      hooks: {
        onRetry: (_a: number, _d: number, reason: string) => void seen.retries.push(reason),
        onExhausted: (reason: string) => void seen.exhausted.push(reason),
      },
    },
  };
}

const transportError = (msg: string) => new GatewayError('call_upstream_connection_failed', msg);

test('max attempts counts every send; the last error is thrown', async () => {
  const { seen, deps: d } = deps();
  let calls = 0;
  await assert.rejects(
    withRetry(
      async () => {
        calls++;
        throw transportError('x');
      },
      fast,
      d,
    ),
    /x/,
  );
  assert.equal(calls, 5);
  assert.equal(seen.retries.length, 4);
  assert.deepEqual(seen.exhausted, ['call_upstream_connection_failed']);
});

test('the first answer with a final status is returned untouched', async () => {
  const { seen, deps: d } = deps();
  const answer = testAnswer({ status: 404 });
  assert.equal(await withRetry(async () => answer, fast, d), answer);
  assert.deepEqual(seen, { retries: [], exhausted: [] });
});

test('a retryable answer is discarded before the next attempt: body dumped, leases released once', async () => {
  const { seen, deps: d } = deps();
  const first = new LeaseLog();
  const losing = testAnswer({ status: 503, leases: first });
  const winning = testAnswer({ status: 200 });
  const answers: Answer[] = [losing, winning];
  const got = await withRetry(async () => answers.shift() as Answer, fast, d);
  assert.equal(got, winning);
  losing.body.send('{"error":"busy"}');
  losing.body.finish();
  assert.equal(losing.body.cancelledWith, undefined, 'a small losing body is read to its end');
  assert.deepEqual(first.ends, ['discarded']);
  assert.deepEqual(seen.retries, ['status_503']);
});

test('the last attempt returns a retryable answer as is (SMG relays the last response) and counts exhaustion', async () => {
  const { seen, deps: d } = deps();
  const leases = new LeaseLog();
  const last = testAnswer({ status: 502, leases });
  let calls = 0;
  const got = await withRetry(
    async () => (++calls < 3 ? testAnswer({ status: 503 }) : last),
    { ...fast, maxAttempts: 3 },
    d,
  );
  assert.equal(got, last);
  assert.equal(last.body.cancelledWith, undefined);
  assert.deepEqual(leases.ends, [], 'the returned answer keeps its leases for the writer');
  assert.deepEqual(seen.exhausted, ['status_502']);
});

test('a non-retryable error is final at once', async () => {
  const { seen, deps: d } = deps();
  let calls = 0;
  const shed = new GatewayError('no_available_workers', 'shed', { retryable: false });
  await assert.rejects(
    withRetry(
      async () => {
        calls++;
        throw shed;
      },
      fast,
      d,
    ),
    (err) => err === shed,
  );
  assert.equal(calls, 1);
  assert.deepEqual(seen, { retries: [], exhausted: [] });
});

test('an error that is not a gateway error (the client left, a crash) is never retried', async () => {
  const { deps: d } = deps();
  let calls = 0;
  await assert.rejects(
    withRetry(
      async () => {
        calls++;
        throw new Error('client disconnected');
      },
      fast,
      d,
    ),
    /client disconnected/,
  );
  assert.equal(calls, 1);
});

test('one attempt configured: no retry, no exhaustion count', async () => {
  const { seen, deps: d } = deps();
  const answer = testAnswer({ status: 503 });
  assert.equal(await withRetry(async () => answer, { ...fast, maxAttempts: 1 }, d), answer);
  assert.deepEqual(seen, { retries: [], exhausted: [] });
});

test('a client abort during backoff ends the loop with the last error', async () => {
  const ac = new AbortController();
  const { deps: d } = deps(ac.signal);
  let calls = 0;
  const run = withRetry(
    async () => {
      calls++;
      throw transportError('y');
    },
    { ...cfg, initialBackoffMs: 60_000 },
    d,
  );
  ac.abort();
  await assert.rejects(run, /y/);
  assert.equal(calls, 1);
});

test('a large losing body is cut instead of read to its end', async () => {
  const { deps: d } = deps();
  const losing = testAnswer({ status: 500 });
  const answers: Answer[] = [losing, testAnswer({ status: 200 })];
  await withRetry(async () => answers.shift() as Answer, fast, d);
  losing.body.send(Buffer.alloc(70 * 1024));
  assert.ok(losing.body.cancelledWith, 'cut past 64 KiB');
});
