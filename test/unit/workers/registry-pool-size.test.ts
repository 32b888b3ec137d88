// smg_worker_pool_size and the announced models follow every add, replace, remove and model_id
// change, counted per worker rather than recomputed over the fleet.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { testWorker } from '../../helpers/workers.js';

async function pools(metrics: GatewayMetrics): Promise<Record<string, number>> {
  const { values } = await metrics.workerPoolSize.get();
  return Object.fromEntries(
    values.map((v) => [`${String(v.labels.worker_type)}/${String(v.labels.model)}`, v.value]),
  );
}

void describe('registry pool size', () => {
  it('counts workers per type and primary model through add, replace, relabel and remove', async () => {
    const metrics = new GatewayMetrics();
    const registry = new WorkerRegistry(metrics);
    registry.add(testWorker('a', { models: ['llama'] }));
    registry.add(testWorker('b', { models: ['llama'] }));
    registry.add(testWorker('p', { type: 'prefill', models: ['llama'] }));
    const q = testWorker('q', { labels: { model_id: 'qwen' } });
    registry.add(q);
    assert.deepEqual(await pools(metrics), {
      'regular/llama': 2,
      'prefill/llama': 1,
      'regular/qwen': 1,
    });

    registry.add(testWorker('b', { models: ['mistral'] }));
    assert.deepEqual(await pools(metrics), {
      'regular/llama': 1,
      'prefill/llama': 1,
      'regular/qwen': 1,
      'regular/mistral': 1,
    });
    assert.equal(registry.modelLabel('mistral'), 'mistral');

    q.labels = { model_id: 'qwen-2' };
    assert.equal(registry.hasModelId('qwen'), false);
    assert.equal(registry.hasModelId('qwen-2'), true);
    assert.equal(registry.modelLabel('qwen'), 'other');

    registry.remove('a');
    registry.remove('q');
    assert.deepEqual(await pools(metrics), { 'prefill/llama': 1, 'regular/mistral': 1 });
    assert.equal(registry.hasModelId('llama'), true, 'the prefill worker still serves it');
    assert.equal(registry.modelLabel('qwen-2'), 'other');
  });
});
