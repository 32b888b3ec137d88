import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition } from '../../../src/dashboard/exposition.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';

test('reads samples with labels, escapes and special values; skips comments and timestamps', () => {
  const samples = parseExposition(
    [
      '# HELP smg_x A gauge',
      '# TYPE smg_x gauge',
      'smg_x 3',
      'smg_y{worker="http://a:1",note="say \\"hi\\"\\\\\\nnext"} 2.5 1700000000000',
      'smg_h_bucket{le="+Inf"} 7',
      'smg_z{a="1",} NaN',
      'smg_w -Inf',
      'garbage line {',
      '',
    ].join('\n'),
  );
  assert.deepEqual(samples.get('smg_x'), [{ labels: {}, value: 3 }]);
  assert.deepEqual(samples.get('smg_y'), [
    { labels: { worker: 'http://a:1', note: 'say "hi"\\\nnext' }, value: 2.5 },
  ]);
  assert.deepEqual(samples.get('smg_h_bucket'), [{ labels: { le: '+Inf' }, value: 7 }]);
  assert.ok(Number.isNaN(samples.get('smg_z')?.[0]?.value));
  assert.equal(samples.get('smg_w')?.[0]?.value, -Infinity);
  assert.equal(samples.has('garbage'), false);
});

test("reads back what the gateway's own registry renders", async () => {
  const metrics = new GatewayMetrics();
  metrics.workerHealth.set({ worker: 'http://127.0.0.1:8000' }, 1);
  metrics.pdAdmissionClaimedRooms.set({ worker: 'http://127.0.0.1:8001' }, 4);
  metrics.routerTtft.observe(
    { router_type: 'http', backend_type: 'regular', model: 'm', endpoint: 'chat' },
    0.2,
  );
  const samples = parseExposition(await metrics.render());
  assert.deepEqual(samples.get('smg_worker_health'), [
    { labels: { worker: 'http://127.0.0.1:8000' }, value: 1 },
  ]);
  assert.equal(samples.get('smg_pd_admission_claimed_rooms')?.[0]?.value, 4);
  const inf = samples.get('smg_router_ttft_seconds_bucket')?.find((s) => s.labels.le === '+Inf');
  assert.equal(inf?.value, 1);
});
