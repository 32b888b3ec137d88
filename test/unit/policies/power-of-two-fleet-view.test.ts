// power_of_two caches the fleet view (the mean reported throughput that scores a worker without
// an engine report) across requests, and a new engine report makes it compute the view again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { PowerOfTwoPolicy } from '../../../src/policies/power-of-two.js';
import { seededRandom } from '@switchyard/kit';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { testWorker } from '../../helpers/workers.js';
import { holdLoad, snapshot } from './policy-fixtures.js';

void describe('power_of_two fleet view', () => {
  it('follows a new engine report of any available worker', () => {
    const registry = new WorkerRegistry(new GatewayMetrics());
    const silent = testWorker('silent', { models: ['m'] });
    const reporting = testWorker('reporting', { models: ['m'] });
    registry.add(silent);
    registry.add(reporting);
    holdLoad(silent, 3);
    const policy = new PowerOfTwoPolicy(seededRandom(1));
    const pick = (): string | undefined => policy.select(registry.candidates('m', 'regular'))?.id;

    // silent scores 3 · 1024 / nominal; reporting scores queued / throughput.
    reporting.loadSnapshot = snapshot(1, { waitingUncachedTokens: 50_000, genThroughput: 10_000 });
    assert.equal(pick(), 'silent', '0.31 s against 5 s');
    reporting.loadSnapshot = snapshot(2, { waitingUncachedTokens: 2_000, genThroughput: 1_000 });
    // With the old nominal (10,000 tokens/s) silent would still score 0.31 s and win.
    assert.equal(pick(), 'reporting', '3.07 s against 2 s');
  });
});
