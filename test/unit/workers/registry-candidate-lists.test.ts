// The registry keeps each (model, type) candidate list and its available and eligible subsets
// current through every event that changes them, so a selection never scans the fleet.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { CircuitBreaker } from '../../../src/workers/circuit-breaker.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import type { Worker, WorkerInit, WorkerType } from '../../../src/workers/worker.js';
import { ManualClock } from '@switchyard/kit';
import { testWorker } from '../../helpers/workers.js';

const ids = (workers: readonly Worker[]): string[] => workers.map((w) => w.id);

function fleet(
  names: string[],
  init: Partial<WorkerInit> = {},
): { registry: WorkerRegistry; workers: Worker[] } {
  const registry = new WorkerRegistry(new GatewayMetrics());
  const workers = names.map((n) => testWorker(n, { models: ['m'], ...init }));
  for (const w of workers) registry.add(w);
  return { registry, workers };
}

/** [all, available, eligible] ids of the model's regular candidates. */
function lists(registry: WorkerRegistry, model = 'm', type: WorkerType = 'regular'): string[][] {
  const set = registry.candidates(model, type);
  return [ids(set.all), ids(set.available), ids(set.eligible)];
}

function breaker(clock: ManualClock): CircuitBreaker {
  return new CircuitBreaker(
    { failureThreshold: 1, successThreshold: 1, timeoutMs: 30_000, disabled: false },
    clock,
  );
}

void describe('registry candidate lists', () => {
  it('drop a worker whose health check fails and take it back once it is ready', () => {
    const { registry, workers } = fleet(['a', 'b']);
    const [a] = workers as [Worker];
    assert.deepEqual(lists(registry), [
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
    registry.setStatus(a, 'not_ready');
    assert.deepEqual(lists(registry), [['a', 'b'], ['b'], ['b']]);
    registry.setStatus(a, 'ready');
    assert.deepEqual(lists(registry), [
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('drop a draining worker at once', () => {
    const { registry, workers } = fleet(['a', 'b']);
    registry.setStatus(workers[1] as Worker, 'draining');
    assert.deepEqual(lists(registry), [['a', 'b'], ['a'], ['a']]);
  });

  it('follow a status written on the worker itself, not through the registry', () => {
    const { registry, workers } = fleet(['a', 'b']);
    lists(registry);
    (workers[0] as Worker).status = 'failed';
    assert.deepEqual(lists(registry), [['a', 'b'], ['b'], ['b']]);
  });

  it('follow the overload veto: neither available nor eligible while overloaded', () => {
    const { registry, workers } = fleet(['a', 'b']);
    const [a] = workers as [Worker];
    lists(registry);
    a.overloaded = true;
    assert.deepEqual(lists(registry), [['a', 'b'], ['b'], ['b']]);
    a.overloaded = false;
    assert.deepEqual(lists(registry), [
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('follow the circuit breaker: open leaves available, not eligible; it half-opens with no one reading it', () => {
    const clock = new ManualClock(1_000_000);
    const circuit = breaker(clock);
    const { registry } = fleet(['b']);
    registry.add(testWorker('a', { models: ['m'], circuit }));
    lists(registry);

    circuit.record('failure');
    assert.deepEqual(lists(registry), [['b', 'a'], ['b'], ['b', 'a']]);
    clock.advance(29_999);
    assert.deepEqual(lists(registry), [['b', 'a'], ['b'], ['b', 'a']]);
    // Nothing reads this breaker's state: the registry must notice the timeout on its own.
    clock.advance(1);
    assert.deepEqual(lists(registry), [
      ['b', 'a'],
      ['b', 'a'],
      ['b', 'a'],
    ]);
    assert.equal(circuit.state, 'half_open');

    circuit.record('failure');
    assert.deepEqual(lists(registry), [['b', 'a'], ['b'], ['b', 'a']], 'half_open -> open');
    clock.advance(30_000);
    lists(registry);
    circuit.record('success');
    assert.equal(circuit.state, 'closed');
    assert.deepEqual(lists(registry), [
      ['b', 'a'],
      ['b', 'a'],
      ['b', 'a'],
    ]);
  });

  it('half-open breakers in order of their timeouts, several at once', () => {
    const clock = new ManualClock(1_000_000);
    const circuits = [breaker(clock), breaker(clock), breaker(clock)];
    const registry = new WorkerRegistry(new GatewayMetrics());
    circuits.forEach((circuit, i) => registry.add(testWorker(`w${i}`, { models: ['m'], circuit })));
    circuits[1]?.record('failure');
    clock.advance(10_000);
    circuits[0]?.record('failure');
    circuits[2]?.record('failure');
    assert.deepEqual(ids(registry.candidates('m', 'regular').available), []);
    clock.advance(20_000);
    assert.deepEqual(ids(registry.candidates('m', 'regular').available), ['w1']);
    clock.advance(10_000);
    assert.deepEqual(ids(registry.candidates('m', 'regular').available), ['w0', 'w1', 'w2']);
  });

  it('stop waiting for the breaker of a removed worker', () => {
    const clock = new ManualClock(1_000_000);
    const circuit = breaker(clock);
    const { registry } = fleet(['b']);
    registry.add(testWorker('a', { models: ['m'], circuit }));
    circuit.record('failure');
    registry.remove('a');
    clock.advance(30_000);
    assert.deepEqual(lists(registry), [['b'], ['b'], ['b']]);
    assert.notEqual(circuit.openUntil, undefined, 'the registry no longer reads its state');
  });

  it('keep registry order through add, remove and replace', () => {
    const { registry, workers } = fleet(['a', 'b', 'c']);
    lists(registry);
    registry.remove('b');
    assert.deepEqual(lists(registry)[0], ['a', 'c']);
    registry.add(workers[1] as Worker);
    assert.deepEqual(lists(registry)[0], ['a', 'c', 'b'], 'a re-added worker goes last');
    const a2 = testWorker('a', { models: ['m'], status: 'not_ready' });
    registry.add(a2);
    const set = registry.candidates('m', 'regular');
    assert.equal(set.all[0], a2, 'a replacement keeps its place');
    assert.deepEqual(ids(set.available), ['c', 'b']);
    registry.setStatus(a2, 'ready');
    assert.deepEqual(ids(registry.candidates('m', 'regular').available), ['a', 'c', 'b']);
  });

  it('ignore the events of a worker that left or was replaced', () => {
    const { registry, workers } = fleet(['a', 'b']);
    const [a, b] = workers as [Worker, Worker];
    registry.add(testWorker('a', { models: ['m'] }));
    registry.remove('b');
    lists(registry);
    a.status = 'not_ready';
    b.overloaded = true;
    assert.deepEqual(lists(registry), [['a'], ['a'], ['a']]);
  });

  it('list every worker of the type for model unknown, and only wildcard workers for an unannounced model', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    registry.add(testWorker('m1', { models: ['one'] }));
    registry.add(testWorker('any', { models: [] }));
    registry.add(testWorker('m2', { labels: { model_id: 'two' } }));
    registry.add(testWorker('p', { type: 'prefill', models: ['one'] }));
    assert.deepEqual(ids(registry.forModel('unknown', 'regular')), ['m1', 'any', 'm2']);
    assert.deepEqual(ids(registry.forModel('one', 'regular')), ['m1', 'any']);
    assert.deepEqual(ids(registry.forModel('two', 'regular')), ['any', 'm2']);
    assert.deepEqual(ids(registry.forModel('invented', 'regular')), ['any']);
    assert.deepEqual(ids(registry.forModel('unknown', 'prefill')), ['p']);
    assert.deepEqual(ids(registry.forModel('two', 'prefill')), []);

    registry.setStatus(registry.get('any') as Worker, 'not_ready');
    assert.deepEqual(ids(registry.candidates('unknown', 'regular').available), ['m1', 'm2']);
    assert.deepEqual(ids(registry.candidates('invented', 'regular').available), []);
  });

  it('move a worker between models when its model_id label changes', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    const w = testWorker('w', { labels: { model_id: 'x' } });
    registry.add(w);
    registry.add(testWorker('other', { models: ['y'] }));
    assert.deepEqual(ids(registry.forModel('x', 'regular')), ['w']);
    w.labels = { ...w.labels, model_id: 'y' };
    assert.deepEqual(ids(registry.forModel('x', 'regular')), []);
    assert.deepEqual(ids(registry.forModel('y', 'regular')), ['w', 'other']);
  });

  it('forget a model whose last worker left: its name then gets the wildcard workers', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    registry.add(testWorker('a', { models: ['gone'] }));
    registry.add(testWorker('any', { models: [] }));
    assert.deepEqual(ids(registry.forModel('gone', 'regular')), ['a', 'any']);
    registry.remove('a');
    assert.deepEqual(ids(registry.forModel('gone', 'regular')), ['any']);
  });
});

void describe('registry candidate arrays', () => {
  it('are the same objects across calls while nothing changes (no per-request copy)', () => {
    const { registry, workers } = fleet(['a', 'b', 'c']);
    const all = registry.forModel('m', 'regular');
    const set = registry.candidates('m', 'regular');
    const available = set.available;
    const eligible = set.eligible;
    for (let i = 0; i < 3; i++) {
      assert.equal(registry.forModel('m', 'regular'), all);
      assert.equal(registry.candidates('m', 'regular').available, available);
      assert.equal(registry.candidates('m', 'regular').eligible, eligible);
    }
    // Leases and engine reports change no list.
    const lease = (workers[0] as Worker).acquireLoad();
    lease.release();
    (workers[1] as Worker).loadSnapshot = { receivedAt: 1, ranks: [] };
    assert.equal(registry.forModel('m', 'regular'), all);
    assert.equal(registry.candidates('m', 'regular').available, available);
  });

  it('are replaced, never mutated, when the candidates change', () => {
    const { registry, workers } = fleet(['a', 'b']);
    const all = registry.forModel('m', 'regular');
    const available = registry.candidates('m', 'regular').available;
    registry.setStatus(workers[0] as Worker, 'not_ready');
    assert.equal(registry.forModel('m', 'regular'), all, 'a status change keeps the member list');
    assert.notEqual(registry.candidates('m', 'regular').available, available);
    assert.deepEqual(ids(available), ['a', 'b'], 'the old list is left as it was');

    registry.add(testWorker('c', { models: ['m'] }));
    assert.notEqual(registry.forModel('m', 'regular'), all);
    assert.deepEqual(ids(all), ['a', 'b']);
  });

  it('keep their identity when a worker of another model joins', () => {
    const { registry } = fleet(['a']);
    const all = registry.forModel('m', 'regular');
    registry.add(testWorker('z', { models: ['other'] }));
    assert.equal(registry.forModel('m', 'regular'), all);
  });

  it('map back to their maintained set; any other list gets a set of its own', () => {
    const { registry, workers } = fleet(['a', 'b']);
    const maintained = registry.candidates('m', 'regular');
    assert.equal(registry.candidateSet(registry.forModel('m', 'regular')), maintained);
    (workers[1] as Worker).overloaded = true;
    const narrowed = registry.candidateSet(registry.forModel('m', 'regular').slice());
    assert.notEqual(narrowed, maintained);
    assert.deepEqual([ids(narrowed.all), ids(narrowed.available)], [['a', 'b'], ['a']]);
  });
});
