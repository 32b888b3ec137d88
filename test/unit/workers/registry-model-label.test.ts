// The `model` metric label is bounded by what the registered workers announce, so client-chosen
// model names cannot create series.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { testWorker } from '../../helpers/workers.js';

void describe('WorkerRegistry.modelLabel', () => {
  it('keeps announced models and unknown, folds every other name into other', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    registry.add(testWorker('a', { models: ['llama', 'llama-lora'] }));
    registry.add(testWorker('b', { labels: { model_id: 'qwen' } }));
    assert.equal(registry.modelLabel('llama'), 'llama');
    assert.equal(
      registry.modelLabel('llama-lora'),
      'llama-lora',
      'every card counts, not only the primary model',
    );
    assert.equal(registry.modelLabel('qwen'), 'qwen');
    assert.equal(registry.modelLabel('unknown'), 'unknown');
    assert.equal(registry.modelLabel('invented-123'), 'other');
  });

  it('forgets a model when its last worker leaves', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    registry.add(testWorker('a', { models: ['llama'] }));
    registry.remove('a');
    assert.equal(registry.modelLabel('llama'), 'other');
  });
});
