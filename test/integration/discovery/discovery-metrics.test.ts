// SMG's smg_discovery_* families, with its labels: registrations by result (a pod at the
// gateway's own address is refused: failed), deregistrations by reason, the worker URLs of the
// live selected pods (unready pods included), and pass durations. A gateway without discovery
// has none.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { FakeKubeApi, discoveryOptions, podJson } from '../../helpers/fake-kube-api.js';
import { metricValue, scrapeMetrics, startTestGateway, waitFor } from '../../helpers/gateway.js';

let api: FakeKubeApi;
let gateway: Gateway;
let plain: Gateway;
let sims: SimWorker[];

const K8S = { source: 'kubernetes' };
const pod = (name: string, port: number, ready = true) =>
  podJson(name, {
    ip: '127.0.0.1',
    labels: { app: 'sglang' },
    annotations: { 'smg.ai/worker-ports': String(port) },
    ready,
  });

before(async () => {
  sims = await Promise.all([0, 1].map(() => startSimWorker({ model: 'llama' })));
  api = await FakeKubeApi.start();
  gateway = await startTestGateway(
    ['--service-discovery', '--selector', 'app=sglang'],
    discoveryOptions(api),
  );
  plain = await startTestGateway([]);
});

after(async () => {
  await Promise.all([gateway.close(), plain.close()]);
  await api.close();
  await Promise.all(sims.map((w) => w.close()));
});

test('registrations, refusals, removals, discovered workers and pass durations are counted', async () => {
  const [a, b] = sims as [SimWorker, SimWorker];
  const own = Number(new URL(gateway.url).port);
  api.apply(pod('a', a.port));
  api.apply(pod('b', b.port));
  api.apply(pod('self', own));
  api.apply(pod('unready', 1234, false));
  await waitFor(() => gateway.internals.registry.all().length === 2, 'two workers');
  api.remove('default', 'b');
  await waitFor(() => gateway.internals.registry.all().length === 1, 'b to leave');

  let text = '';
  await waitFor(
    async () =>
      metricValue(
        (text = await scrapeMetrics(gateway)),
        'smg_discovery_workers_discovered',
        K8S,
      ) === 3,
    'a, self and the unready pod to be counted',
  );
  assert.equal(
    metricValue(text, 'smg_discovery_registrations_total', { ...K8S, result: 'success' }),
    2,
  );
  // The refused pod is tried again on every pass, and counted each time (as SMG's submit failures).
  assert.ok(
    (metricValue(text, 'smg_discovery_registrations_total', { ...K8S, result: 'failed' }) ?? 0) >=
      1,
  );
  assert.equal(
    metricValue(text, 'smg_discovery_deregistrations_total', { ...K8S, reason: 'reconciled' }),
    1,
  );
  assert.ok((metricValue(text, 'smg_discovery_sync_duration_seconds_count', K8S) ?? 0) >= 2);
  assert.equal(gateway.internals.registry.getByUrl(`http://127.0.0.1:${own}`), undefined);
});

test('a gateway without --service-discovery exports no discovery family', async () => {
  const text = await scrapeMetrics(plain);
  assert.doesNotMatch(text, /smg_discovery_/);
});
