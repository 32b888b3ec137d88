// `--engine-metrics` re-exports an engine's load report per DP rank with SMG's labels
// (`worker`, `model`, `dp_rank`; SMG observability/metrics.rs `record_engine_load`), and a
// removed worker or a rank that stops reporting leaves no series behind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getGlobalDispatcher } from 'undici';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { LoadMonitor } from '../../../src/workers/load-monitor.js';
import type { RankLoad } from '../../../src/workers/load-snapshot.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { ManualClock } from '@switchyard/kit';
import { metricValue } from '../../helpers/gateway.js';
import { testWorker } from '../../helpers/workers.js';

function rank(dpRank: number, runningReqs: number, tokenUsage: number): RankLoad {
  return {
    dpRank,
    runningReqs,
    waitingReqs: dpRank + 10,
    waitingUncachedTokens: 0,
    usedTokens: 0,
    maxTotalTokens: 1000,
    tokenUsage,
    genThroughput: 50,
    cacheHitRate: 0.25,
    maxRunningRequests: 64,
  };
}

function setup(): { metrics: GatewayMetrics; registry: WorkerRegistry; monitor: LoadMonitor } {
  const metrics = new GatewayMetrics();
  const registry = new WorkerRegistry(metrics);
  const monitor = new LoadMonitor(
    { intervalMs: 3_600_000, engineMetrics: true, overload: {} },
    registry,
    metrics,
    new ManualClock(1_000_000),
    getGlobalDispatcher(),
  );
  return { metrics, registry, monitor };
}

const engineLines = (text: string): string[] =>
  text.split('\n').filter((l) => l.startsWith('smg_engine_'));

void describe('smg_engine_* gauges', () => {
  it('have one series per DP rank, labelled with the worker, its model and the rank', async () => {
    const { metrics, registry, monitor } = setup();
    const worker = testWorker('a', { models: ['llama'] });
    registry.add(worker);
    monitor.ingest(worker, [rank(0, 3, 0.5), rank(1, 7, 0.1)]);
    const text = await metrics.render();
    const labels = (dpRank: string) => ({ worker: worker.key, model: 'llama', dp_rank: dpRank });
    assert.equal(metricValue(text, 'smg_engine_running_requests', labels('0')), 3);
    assert.equal(metricValue(text, 'smg_engine_running_requests', labels('1')), 7);
    assert.equal(metricValue(text, 'smg_engine_waiting_requests', labels('1')), 11);
    assert.equal(metricValue(text, 'smg_engine_token_usage', labels('0')), 0.5);
    assert.equal(metricValue(text, 'smg_engine_gen_throughput', labels('1')), 50);
    assert.equal(metricValue(text, 'smg_engine_cache_hit_rate', labels('0')), 0.25);
    assert.equal(engineLines(text).length, 10, engineLines(text).join('\n'));
  });

  it('drop a rank that stops reporting, and every series of a removed worker', async () => {
    const { metrics, registry, monitor } = setup();
    const worker = testWorker('a', { models: ['llama'] });
    registry.add(worker);
    monitor.ingest(worker, [rank(0, 3, 0.5), rank(1, 7, 0.1)]);
    monitor.ingest(worker, [rank(0, 4, 0.5)]);
    let text = await metrics.render();
    assert.equal(engineLines(text).length, 5, engineLines(text).join('\n'));
    assert.equal(metricValue(text, 'smg_engine_running_requests', { dp_rank: '0' }), 4);
    registry.remove(worker.id);
    text = await metrics.render();
    assert.deepEqual(engineLines(text), []);
  });

  it('are not written back by a report that arrives after its worker left', async () => {
    const { metrics, registry, monitor } = setup();
    const worker = testWorker('a', { models: ['llama'] });
    registry.add(worker);
    registry.remove(worker.id);
    monitor.ingest(worker, [rank(0, 3, 0.5)]);
    assert.deepEqual(engineLines(await metrics.render()), []);
  });
});
