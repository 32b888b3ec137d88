// With --pd-disaggregation, discovery gives each pod its role by --prefill-selector and
// --decode-selector, a prefill worker its bootstrap port from the pod annotation, watches with
// the labels both roles share, and the discovered pair serves a PD request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { FakeKubeApi, discoveryOptions, podJson } from '../../helpers/fake-kube-api.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';

let api: FakeKubeApi;
let gateway: Gateway;
let prefill: SimWorker;
let decode: SimWorker;

before(async () => {
  prefill = await startSimWorker({ role: 'prefill', model: 'llama', ttftMs: 2, itlMs: 2 });
  decode = await startSimWorker({ role: 'decode', model: 'llama', ttftMs: 2, itlMs: 2 });
  api = await FakeKubeApi.start();
  gateway = await startTestGateway(
    [
      '--pd-disaggregation',
      '--policy',
      'round_robin',
      '--service-discovery',
      '--prefill-selector',
      'app=sglang',
      'role=prefill',
      '--decode-selector',
      'app=sglang',
      'role=decode',
      '--bootstrap-port-annotation',
      'example.com/bootstrap',
    ],
    discoveryOptions(api),
  );
});

after(async () => {
  await gateway.close();
  await api.close();
  await Promise.all([prefill.close(), decode.close()]);
});

test('pods become prefill and decode workers by selector, the prefill with its bootstrap port', async () => {
  const annotations = (w: SimWorker) => ({ 'smg.ai/worker-ports': String(w.port) });
  api.apply(
    podJson('prefill-0', {
      ip: '127.0.0.1',
      labels: { app: 'sglang', role: 'prefill' },
      annotations: {
        ...annotations(prefill),
        'example.com/bootstrap': String(prefill.bootstrapPort),
        // The default annotation is not the one this gateway reads.
        'sglang.ai/bootstrap-port': '1',
      },
    }),
  );
  api.apply(
    podJson('decode-0', {
      ip: '127.0.0.1',
      labels: { app: 'sglang', role: 'decode' },
      annotations: annotations(decode),
    }),
  );
  api.apply(podJson('unrelated', { ip: '127.0.0.1', labels: { app: 'sglang', role: 'router' } }));
  await waitForReadyWorkers(gateway, 2);

  const { registry } = gateway.internals;
  const p = registry.getByUrl(prefill.url);
  const d = registry.getByUrl(decode.url);
  assert.equal(p?.type, 'prefill');
  assert.equal(p?.bootstrapPort, prefill.bootstrapPort);
  assert.equal(d?.type, 'decode');
  assert.equal(registry.all().length, 2, 'the pod matching neither role is no worker');
  // One watch covers both roles: the API server filters by the labels they share.
  assert.equal(api.watchRequests()[0]?.query.get('labelSelector'), 'app=sglang');
  assert.equal(api.listRequests()[0]?.path, '/api/v1/pods');

  const res = await postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'llama',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 3,
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  // Both legs ran: the decode joined the prefill's room over the bootstrap port the pod named.
  assert.equal(prefill.stats().completed, 1);
  assert.equal(decode.stats().completed, 1);
  assert.equal(prefill.stats().roomsSeen.length, 1);
  await assertAllReleased(gateway);
});
