// Only available workers weigh in the IGW router choice (ready, circuit allows, not overloaded;
// SMG counted dead ones), and the manager's answers when there is no router to choose.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { CircuitBreaker } from '../../../src/workers/circuit-breaker.js';
import { ManualClock } from '@switchyard/kit';
import { ctxFor, harness, type RequestShape } from './router-manager-fixtures.js';

function assertRejects(run: () => unknown, status: number, code: string): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.status, status);
    return true;
  });
}

describe('router manager availability', () => {
  it('stops counting a worker whose circuit opens, and counts it again once it half-opens', () => {
    const clock = new ManualClock(1_000_000);
    const h = harness();
    const circuit = new CircuitBreaker(
      { failureThreshold: 1, successThreshold: 1, timeoutMs: 30_000, disabled: false },
      clock,
    );
    h.add('prefill', 1, 'm', { circuit });
    h.add('decode', 1);
    h.add('regular', 2);
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 2, 'http-regular': 2 });

    circuit.record('failure');
    assert.equal(circuit.state, 'open');
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 0, 'http-regular': 2 });
    assert.equal(h.pdShare(1000), 0, 'no PD traffic while the only prefill circuit is open');

    clock.advance(30_000);
    assert.equal(circuit.state, 'half_open');
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 2, 'http-regular': 2 });
  });

  it('does not count workers that are not ready or are overloaded', () => {
    const h = harness();
    const [pending] = h.add('regular', 1);
    const [overloaded] = h.add('regular', 1);
    h.add('regular', 1);
    h.add('prefill', 1);
    const [decode] = h.add('decode', 1);
    assert.ok(pending && overloaded && decode);
    h.registry.setStatus(pending, 'pending');
    overloaded.overloaded = true;
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 2, 'http-regular': 1 });
    h.registry.setStatus(decode, 'draining');
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 0, 'http-regular': 1 });
  });

  it('answers 503 no_available_workers when the model has workers but none available', () => {
    const h = harness();
    const [regular] = h.add('regular', 1);
    h.add('prefill', 1);
    assert.ok(regular);
    h.registry.setStatus(regular, 'not_ready');
    assertRejects(() => h.manager.choose(ctxFor()), 503, 'no_available_workers');
    assert.equal(h.choices.length, 0);
  });

  it('answers 404 model_not_found when no worker of any kind serves the model', () => {
    const h = harness();
    h.add('regular', 2, 'other');
    assertRejects(() => h.manager.choose(ctxFor({ model: 'missing' })), 404, 'model_not_found');
    assert.deepEqual(h.weights, [], 'an unserved model name never becomes a gauge label');
  });

  it('answers 503 while no worker at all is registered, as the regular router does', () => {
    const h = harness();
    assertRejects(() => h.manager.choose(ctxFor()), 503, 'no_available_workers');
  });

  it('answers 400 missing_model to /generate without a model', () => {
    const h = harness();
    h.add('regular', 1);
    const generate: RequestShape = { endpoint: 'generate', model: 'unknown' };
    assertRejects(() => h.manager.choose(ctxFor(generate)), 400, 'missing_model');
    assert.equal(
      h.manager.choose(ctxFor({ endpoint: 'generate', model: 'm' })).router.type,
      'http-regular',
    );
  });

  it('weighs all workers for a chat request without a model (SMG: every worker)', () => {
    const h = harness();
    h.add('prefill', 1, 'a');
    h.add('decode', 1, 'b');
    h.add('regular', 2, 'c');
    assert.deepEqual(h.manager.weightsFor('unknown'), { 'http-pd': 2, 'http-regular': 2 });
    assert.ok(h.manager.choose(ctxFor({ model: 'unknown' })));
  });
});
