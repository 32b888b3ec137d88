// The --max-buffered-body-bytes arithmetic: a charge grows to a total, never past the capacity
// summed over every open charge, and gives its bytes back exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyBudget, budgetExhausted } from '../../../src/server/body-budget.js';

function budget(capacity: number): { budget: BodyBudget; gauge: number[] } {
  const gauge: number[] = [];
  return { budget: new BodyBudget(capacity, { set: (v) => gauge.push(v) }), gauge };
}

test('charges grow to a total and are refused past the capacity, holding what they had', () => {
  const { budget: b, gauge } = budget(100);
  const first = b.open();
  const second = b.open();
  assert.equal(first.holdUpTo(60), true);
  assert.equal(first.holdUpTo(40), true, 'a smaller total holds nothing more');
  assert.equal(b.used, 60);
  assert.equal(second.holdUpTo(41), false, '60 + 41 is past 100');
  assert.equal(b.used, 60, 'a refused rise charges nothing');
  assert.equal(second.holdUpTo(40), true, 'exactly the capacity fits');
  assert.equal(b.used, 100);
  assert.equal(first.holdUpTo(61), false);
  assert.deepEqual(gauge, [60, 100]);
});

test('a release returns the bytes once; a released charge no longer counts', () => {
  const { budget: b, gauge } = budget(100);
  const first = b.open();
  const second = b.open();
  first.holdUpTo(70);
  second.holdUpTo(30);
  first.release();
  first.release();
  assert.equal(b.used, 30, 'the second release returned nothing');
  assert.equal(first.holdUpTo(90), true, 'a read finishing after its release is not charged');
  assert.equal(b.used, 30);
  second.release();
  assert.equal(b.used, 0);
  assert.deepEqual(gauge, [70, 100, 30, 0]);
  const empty = b.open();
  empty.release();
  assert.equal(b.used, 0, 'releasing a charge that held nothing is harmless');
});

test('the refusal is a 503 that the gateway never retries and that closes the connection', () => {
  const err = budgetExhausted(4096);
  assert.equal(err.status, 503);
  assert.equal(err.code, 'request_body_budget_exhausted');
  assert.equal(err.retryable, false);
  assert.deepEqual(err.headers, { connection: 'close', 'retry-after': '1' });
});
