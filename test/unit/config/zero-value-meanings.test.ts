// What a 0 means for the flags SMG lets be 0, without a 0 ms timer anywhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keepAliveMsFor } from '../../../src/upstream/pools.js';
import { MAX_TIMER_MS } from '@switchyard/kit';
import { MIN_PROBE_DELAY_MS, probeDelayMs } from '../../../src/workers/health.js';

void describe('zero values', () => {
  void it('--health-check-interval-secs 0 probes as often as possible without a 0 ms timer: every second', () => {
    assert.equal(MIN_PROBE_DELAY_MS, 1000);
    assert.equal(probeDelayMs(0), 1000);
    assert.equal(probeDelayMs(1000), 1000);
    assert.equal(probeDelayMs(60_000), 60_000);
  });

  void it('--upstream-pool-idle-timeout-secs 0 keeps idle connections as long as a timer can hold', () => {
    assert.equal(keepAliveMsFor(0), MAX_TIMER_MS);
    assert.equal(keepAliveMsFor(3000), 3000);
  });
});
