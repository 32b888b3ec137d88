/**
 * The primary's aggregate of the processes' registries: counters and histograms sum, in-flight
 * gauges sum, fleet-state gauges are not multiplied by the number of processes, every gauge of
 * GatewayMetrics has a decided aggregator, and an exited process's counters are carried so the
 * sums never go backwards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterMetrics, type ScrapeTarget } from '../../../src/cluster/cluster-metrics.js';
import { GAUGE_AGGREGATORS } from '../../../src/cluster/metric-aggregators.js';
import type { MetricsRequest } from '../../../src/cluster/messages.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { DiscoveryMetrics } from '../../../src/observability/discovery-metrics.js';
import { InProcessStore } from '../../../src/admission/store/in-process-store.js';
import { registerAdmissionStoreMetrics } from '../../../src/server/admission-store-metrics.js';
import { metricValue } from '../../helpers/gateway.js';

/** A process of the fleet: its own GatewayMetrics, answering scrapes as worker.ts does. */
function processOf(cluster: ClusterMetrics, workerId: number, slot: number) {
  const metrics = new GatewayMetrics();
  const target: ScrapeTarget = {
    workerId,
    slot,
    send: (msg: MetricsRequest) => {
      void metrics.registry.getMetricsAsJSON().then((json) => {
        // Through JSON, as over IPC.
        const answer: unknown = JSON.parse(
          JSON.stringify({ t: 'sy-metrics-res', id: msg.id, metrics: json }),
        );
        cluster.onMessage(workerId, answer);
      });
    },
  };
  return { metrics, target };
}

function traffic(m: GatewayMetrics, requests: number): void {
  for (let i = 0; i < requests; i++) {
    m.httpRequests.inc({ method: 'POST', path: '/v1/chat/completions' });
    m.httpDuration.observe({ method: 'POST', path: '/v1/chat/completions' }, 0.2);
  }
  m.workerRequestsActive.set({ worker: 'http://w1' }, requests);
  m.workerHealth.set({ worker: 'http://w1' }, 1);
  m.cbState.set({ worker: 'http://w1' }, 0);
  m.engineRunning.set({ worker: 'http://w1', model: 'm', dp_rank: '0' }, 7);
}

const CHAT = { method: 'POST', path: '/v1/chat/completions' };

describe('cluster metrics aggregation', () => {
  it('every gauge of GatewayMetrics has a decided aggregator', async () => {
    const metrics = new GatewayMetrics();
    // The families registered beside GatewayMetrics: discovery's and the admission store's.
    new DiscoveryMetrics(metrics.registry);
    registerAdmissionStoreMetrics(metrics.registry, new InProcessStore());
    const families = await metrics.registry.getMetricsAsJSON();
    const gauges = families.filter((f) => String(f.type) === 'gauge').map((f) => f.name);
    assert.ok(gauges.length > 10);
    const undecided = gauges.filter((name) => GAUGE_AGGREGATORS[name] === undefined);
    assert.deepEqual(undecided, [], 'add each to GAUGE_AGGREGATORS (sum, max or min)');
  });

  it('sums counters, histograms and in-flight gauges; takes one view of fleet state', async () => {
    const cluster = new ClusterMetrics({ processes: () => 2 });
    const a = processOf(cluster, 1, 0);
    const b = processOf(cluster, 2, 1);
    traffic(a.metrics, 3);
    traffic(b.metrics, 4);
    b.metrics.workerHealth.set({ worker: 'http://w1' }, 0);
    b.metrics.cbState.set({ worker: 'http://w1' }, 1);
    const text = await cluster.render([a.target, b.target]);
    assert.equal(metricValue(text, 'smg_http_requests_total', CHAT), 7);
    assert.equal(metricValue(text, 'smg_http_request_duration_seconds_count', CHAT), 7);
    assert.equal(
      metricValue(text, 'smg_http_request_duration_seconds_bucket', { ...CHAT, le: '0.25' }),
      7,
    );
    assert.equal(metricValue(text, 'smg_worker_requests_active', { worker: 'http://w1' }), 7);
    assert.equal(metricValue(text, 'smg_engine_running_requests', { worker: 'http://w1' }), 7);
    assert.equal(
      metricValue(text, 'smg_worker_health', { worker: 'http://w1' }),
      0,
      'ready only when every process finds it ready',
    );
    assert.equal(metricValue(text, 'smg_worker_cb_state', { worker: 'http://w1' }), 1);
    assert.equal(metricValue(text, 'smg_cluster_process_http_requests_total', { process: '0' }), 3);
    assert.equal(metricValue(text, 'smg_cluster_process_http_requests_total', { process: '1' }), 4);
    assert.equal(metricValue(text, 'smg_cluster_processes'), 2);
  });

  it("carries an exited process's counters, not its gauges", async () => {
    const cluster = new ClusterMetrics({ processes: () => 1 });
    const a = processOf(cluster, 1, 0);
    const b = processOf(cluster, 2, 1);
    traffic(a.metrics, 3);
    traffic(b.metrics, 4);
    await cluster.render([a.target, b.target]);
    cluster.retire(2);
    const fresh = processOf(cluster, 3, 1);
    traffic(fresh.metrics, 1);
    const text = await cluster.render([a.target, fresh.target]);
    assert.equal(metricValue(text, 'smg_http_requests_total', CHAT), 8, '3 + 4 carried + 1');
    assert.equal(metricValue(text, 'smg_http_request_duration_seconds_count', CHAT), 8);
    assert.equal(metricValue(text, 'smg_worker_requests_active', { worker: 'http://w1' }), 4);
  });

  it('a scrape waits for no process that exits, and fails when one does not answer', async () => {
    const cluster = new ClusterMetrics({ processes: () => 2, timeoutMs: 50 });
    const a = processOf(cluster, 1, 0);
    const silent: ScrapeTarget = { workerId: 2, slot: 1, send: () => undefined };
    const scrape = cluster.render([a.target, silent]);
    setImmediate(() => cluster.retire(2));
    assert.ok((await scrape).includes('smg_http_requests_total'));
    await assert.rejects(cluster.render([a.target, silent]), /gateway processes 1 did not answer/);
  });
});
