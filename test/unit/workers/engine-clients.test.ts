// One engine client per gRPC engine URL: the DP ranks of one engine share it, it closes once
// when the last of them leaves, a registration that finds another runtime replaces it, and
// closeAll closes each once and refuses new ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { EngineClients } from '../../../src/workers/engine-clients.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { Worker } from '../../../src/workers/worker.js';
import { fakeEngine, FakeConnector } from '../../helpers/fake-engine.js';

const URL_A = 'grpc://127.0.0.1:50301';

function rank(dpRank: number, url = URL_A, runtime: Worker['runtime'] = 'sglang'): Worker {
  return new Worker({
    id: `${url}@${dpRank}`,
    url,
    type: 'regular',
    runtime,
    models: ['m'],
    labels: {},
    priority: 50,
    cost: 1,
    spec: {},
    dpRank,
    dpSize: 2,
  });
}

function setup() {
  const connector = new FakeConnector();
  connector.add(URL_A, fakeEngine('sglang'));
  const registry = new WorkerRegistry(new GatewayMetrics());
  const clients = new EngineClients(connector);
  clients.attach(registry);
  return { connector, registry, clients };
}

void describe('EngineClients', () => {
  void it('shares one client between DP ranks and closes it once, after the last rank', () => {
    const { connector, registry, clients } = setup();
    const r0 = rank(0);
    const r1 = rank(1);
    registry.add(r0);
    registry.add(r1);
    assert.equal(clients.get(r0), clients.get(r1));
    assert.equal(connector.clients.length, 1);
    registry.remove(r0.id);
    assert.deepEqual(connector.closes(URL_A), [0]);
    registry.remove(r1.id);
    assert.deepEqual(connector.closes(URL_A), [1]);
    assert.equal(clients.has(URL_A), false);
  });

  void it('replaces a client whose runtime differs from the one asked for', () => {
    const { connector, clients } = setup();
    const first = clients.forUrl(URL_A, 'sglang');
    const second = clients.forUrl(URL_A, 'vllm');
    assert.notEqual(first, second);
    assert.equal(second.runtime, 'vllm');
    assert.deepEqual(connector.closes(URL_A), [1, 0]);
  });

  void it('refuses HTTP workers and runtimes without a gRPC client', () => {
    const { clients } = setup();
    assert.throws(() => clients.get(rank(0, 'http://127.0.0.1:9')), /HTTP worker/);
    assert.throws(() => clients.get(rank(0, URL_A, 'trtllm')), /trtllm/);
  });

  void it('closeAll closes each client once; later requests throw', () => {
    const { connector, clients } = setup();
    clients.forUrl(URL_A, 'sglang');
    clients.closeAll();
    clients.closeAll();
    assert.deepEqual(connector.closes(URL_A), [1]);
    assert.throws(() => clients.forUrl(URL_A, 'sglang'), /closing/);
  });
});
