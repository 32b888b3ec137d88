import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CircuitBreaker,
  outcomeForStatus,
  type CircuitState,
} from '../../../src/workers/circuit-breaker.js';
import { ManualClock } from '@switchyard/kit';

function breaker(
  clock = new ManualClock(1_000_000),
  disabled = false,
): { cb: CircuitBreaker; clock: ManualClock; transitions: string[] } {
  const transitions: string[] = [];
  const cb = new CircuitBreaker(
    { failureThreshold: 3, successThreshold: 2, timeoutMs: 1000, disabled },
    clock,
    {
      transition: (from: CircuitState, to: CircuitState) => transitions.push(`${from}->${to}`),
      outcome: () => undefined,
    },
  );
  return { cb, clock, transitions };
}

test('opens after N consecutive failures; a success in between resets the count', () => {
  const { cb } = breaker();
  cb.record('failure');
  cb.record('failure');
  cb.record('success');
  cb.record('failure');
  cb.record('failure');
  assert.equal(cb.state, 'closed');
  cb.record('failure');
  assert.equal(cb.state, 'open');
  assert.equal(cb.canExecute(), false);
});

test('half-opens lazily after the timeout, closes after M successes', () => {
  const { cb, clock, transitions } = breaker();
  for (let i = 0; i < 3; i++) cb.record('failure');
  clock.advance(999);
  assert.equal(cb.state, 'open');
  clock.advance(1);
  assert.equal(cb.state, 'half_open');
  assert.equal(cb.canExecute(), true);
  cb.record('success');
  assert.equal(cb.state, 'half_open');
  cb.record('success');
  assert.equal(cb.state, 'closed');
  assert.deepEqual(transitions, ['closed->open', 'open->half_open', 'half_open->closed']);
});

test('any failure while half-open reopens', () => {
  const { cb, clock } = breaker();
  for (let i = 0; i < 3; i++) cb.record('failure');
  clock.advance(1000);
  cb.record('success');
  cb.record('failure');
  assert.equal(cb.state, 'open');
});

test('neutral outcomes change nothing; a disabled breaker never opens', () => {
  const { cb } = breaker();
  for (let i = 0; i < 10; i++) cb.record('neutral');
  assert.equal(cb.state, 'closed');
  const off = breaker(new ManualClock(1_000_000), true).cb;
  for (let i = 0; i < 100; i++) off.record('failure');
  assert.equal(off.state, 'closed');
});

test('outcome classes: 429 neutral, retryable statuses fail, others succeed', () => {
  assert.equal(outcomeForStatus(429), 'neutral');
  for (const s of [408, 500, 502, 503, 504]) assert.equal(outcomeForStatus(s), 'failure');
  for (const s of [200, 400, 404, 501]) assert.equal(outcomeForStatus(s), 'success');
});
